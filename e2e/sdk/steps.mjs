// What the SDK scripts run by runBesideSDK (localnet_test.go) share: a
// named step that prints "OK name" or "FAIL name: why" (and exits at the
// first failure), a check, exact sums of decimal amounts, and
// Object.groupBy, which a few SDK helpers call and Node.js 20 lacks.

export async function step(name, fn) {
  try {
    const r = await fn()
    console.log('OK', name)
    return r
  } catch (e) {
    console.log('FAIL', name + ':', e?.stack ?? e?.message ?? JSON.stringify(e))
    process.exit(1)
  }
}

export function expect(what, got, want) {
  if (String(got) !== String(want)) throw new Error(`${what}: got ${got}, want ${want}`)
}

if (!Object.groupBy) {
  Object.groupBy = (items, key) => {
    const out = Object.create(null)
    let i = 0
    for (const it of items) (out[key(it, i++)] ??= []).push(it)
    return out
  }
}

const scale = 10n ** 10n

// sum adds decimal strings exactly (10 fractional digits, as money is);
// a leading '-' subtracts.
export function sum(amounts) {
  let t = 0n
  for (const a of amounts) {
    const s = String(a)
    const neg = s.startsWith('-')
    const [w, f = ''] = s.replace(/^[-+]/, '').split('.')
    const units = BigInt(w) * scale + BigInt((f + '0000000000').slice(0, 10))
    t += neg ? -units : units
  }
  const sign = t < 0n ? '-' : ''
  if (t < 0n) t = -t
  const f = (t % scale).toString().padStart(10, '0').replace(/0+$/, '')
  return sign + (t / scale).toString() + (f ? '.' + f : '')
}

// The wallet integration guide's flows, driven by the Canton Network wallet
// SDK (@canton-network/wallet-sdk, pinned in scripts/deps.sh) against a
// ccwallet it did not write for: two external parties onboarded through the
// Ledger API, taps, a two-step transfer accepted by the receiver, a
// rejected one, a preapproval and a one-step transfer, holdings and their
// transactions, and a merge of holdings by self-transfer. Every step
// prints "OK name" or "FAIL name: why", and the process exits non-zero at
// the first failure; TestWalletSDKGuide (sdk_test.go) runs it.
//
// Environment: LEDGER_API (the JSON Ledger API's URL), APP (the wallet's
// URL: validator API, registry and scan), TOKEN (a token of the wallet's
// admin user, who allocates the parties and acts for them).
import { WalletSDKImpl, LedgerController, TokenStandardController, ValidatorController, createKeyPair } from '@canton-network/wallet-sdk'
import { randomUUID } from 'node:crypto'
import { pino } from 'pino'

// Object.groupBy, which the SDK's mergeHoldingUtxos calls and Node.js 20
// lacks, comes from steps.mjs (copied beside this script by runBesideSDK).
import './steps.mjs'

const { LEDGER_API, APP, TOKEN } = process.env
const lapi = new URL(LEDGER_API)
const validator = new URL(APP + '/api/validator')
const auth = () => ({
  userId: 'admin',
  async getUserToken() { return { userId: 'admin', accessToken: TOKEN } },
  async getAdminToken() { return { userId: 'admin', accessToken: TOKEN } },
})
const sdk = new WalletSDKImpl().configure({
  logger: pino({ level: 'warn' }),
  authFactory: auth,
  ledgerFactory: (u, p, isAdmin) => new LedgerController(u, lapi, TOKEN, isAdmin, p),
  tokenStandardFactory: (u, p, isAdmin) => new TokenStandardController(u, lapi, validator, TOKEN, p, isAdmin, undefined, new URL(APP + '/api/scan')),
  validatorFactory: (u, p) => new ValidatorController(u, validator, p, false, TOKEN),
})

async function step(name, fn) {
  try {
    const r = await fn()
    console.log('OK', name)
    return r
  } catch (e) {
    console.log('FAIL', name + ':', e?.message ?? JSON.stringify(e))
    process.exit(1)
  }
}
function expect(what, got, want) {
  if (String(got) !== String(want)) throw new Error(`${what}: got ${got}, want ${want}`)
}
// sum adds decimal strings exactly (10 fractional digits), as money is.
function sum(amounts) {
  const scale = 10n ** 10n
  let t = 0n
  for (const a of amounts) {
    const [w, f = ''] = String(a).split('.')
    t += BigInt(w) * scale + BigInt((f + '0000000000').slice(0, 10))
  }
  const f = (t % scale).toString().padStart(10, '0').replace(/0+$/, '')
  return (t / scale).toString() + (f ? '.' + f : '')
}
async function holdings(party) {
  await sdk.setPartyId(party)
  return sdk.tokenStandard.listHoldingUtxos(false)
}
async function as(party, key, cmds, dc) {
  await sdk.setPartyId(party)
  return sdk.userLedger.prepareSignExecuteAndWaitFor(cmds, key, randomUUID(), dc ?? [])
}

await step('connect', () => sdk.connect())
// The synchronizer, from the scan proxy, as the guide's examples take it.
await step('connect topology', () => sdk.connectTopology(new URL(APP + '/api/validator')))
sdk.tokenStandard.setTransferFactoryRegistryUrl(new URL(APP))
const admin = await step('instrument admin', () => sdk.tokenStandard.getInstrumentAdmin())
const coin = { instrumentId: 'Amulet', instrumentAdmin: admin }

// Onboarding: generate the topology, sign its hash, allocate.
const aliceKeys = createKeyPair(), bobKeys = createKeyPair()
const alice = (await step('onboard alice', () => sdk.userLedger.signAndAllocateExternalParty(aliceKeys.privateKey, 'sdk-alice'))).partyId
const bob = (await step('onboard bob', () => sdk.userLedger.signAndAllocateExternalParty(bobKeys.privateKey, 'sdk-bob'))).partyId

// Tap, by the external party's own signature.
await step('tap', async () => {
  await sdk.setPartyId(alice)
  const [cmd, dc] = await sdk.tokenStandard.createTap(alice, '100', coin)
  return as(alice, aliceKeys.privateKey, cmd, dc)
})
await step('second tap', async () => {
  const [cmd, dc] = await sdk.tokenStandard.createTap(alice, '50', coin)
  return as(alice, aliceKeys.privateKey, cmd, dc)
})
await step('holdings after the taps', async () => {
  const hs = await holdings(alice)
  expect('holdings', hs.length, 2)
  expect('amount', sum(hs.map(h => h.interfaceViewValue.amount)), '150')
})

// Two-step transfer: alice instructs, bob accepts.
await step('transfer instruction', async () => {
  await sdk.setPartyId(alice)
  const [cmd, dc] = await sdk.tokenStandard.createTransfer(alice, bob, '25', coin, [], 'sdk guide transfer')
  return as(alice, aliceKeys.privateKey, cmd, dc)
})
const pending = await step('bob sees the instruction', async () => {
  await sdk.setPartyId(bob)
  const ps = await sdk.tokenStandard.fetchPendingTransferInstructionView()
  expect('pending instructions', ps.length, 1)
  expect('amount', sum([ps[0].interfaceViewValue.transfer.amount]), '25')
  return ps[0]
})
await step('bob accepts', async () => {
  await sdk.setPartyId(bob)
  const [cmd, dc] = await sdk.tokenStandard.exerciseTransferInstructionChoice(pending.contractId, 'Accept')
  return as(bob, bobKeys.privateKey, cmd, dc)
})
await step('bob holds 25', async () => {
  const hs = await holdings(bob)
  expect('amount', sum(hs.map(h => h.interfaceViewValue.amount)), '25')
})

// A second instruction, rejected: alice's locked coin comes back.
await step('second instruction', async () => {
  await sdk.setPartyId(alice)
  const [cmd, dc] = await sdk.tokenStandard.createTransfer(alice, bob, '10', coin, [], 'to be rejected')
  return as(alice, aliceKeys.privateKey, cmd, dc)
})
await step('bob rejects', async () => {
  await sdk.setPartyId(bob)
  const ps = await sdk.tokenStandard.fetchPendingTransferInstructionView()
  expect('pending instructions', ps.length, 1)
  const [cmd, dc] = await sdk.tokenStandard.exerciseTransferInstructionChoice(ps[0].contractId, 'Reject')
  return as(bob, bobKeys.privateKey, cmd, dc)
})
await step('nothing pending, nothing locked', async () => {
  await sdk.setPartyId(bob)
  expect('pending instructions', (await sdk.tokenStandard.fetchPendingTransferInstructionView()).length, 0)
  await sdk.setPartyId(alice)
  const all = await sdk.tokenStandard.listHoldingUtxos(true)
  expect('locked holdings', all.filter(h => h.interfaceViewValue.lock).length, 0)
})

// A transfer preapproval: bob proposes, the validator's operator (the
// provider) accepts; a transfer to him is then one step, with no
// instruction to accept.
const operator = await step('validator operator', () => sdk.validator.getValidatorUser())
await step('bob preapproves transfers', async () => {
  await sdk.setPartyId(bob)
  return as(bob, bobKeys.privateKey, await sdk.userLedger.createTransferPreapprovalCommand(operator, bob, admin))
})
await step('bob preapproval is live', async () => {
  await sdk.setPartyId(bob)
  const pre = await sdk.tokenStandard.getTransferPreApprovalByParty(bob, 'Amulet')
  if (!pre?.contractId) throw new Error('no preapproval for bob')
})
await step('one-step transfer to bob', async () => {
  await sdk.setPartyId(alice)
  const [cmd, dc] = await sdk.tokenStandard.createTransfer(alice, bob, '5', coin, [], 'one step')
  return as(alice, aliceKeys.privateKey, cmd, dc)
})
await step('bob holds 30, nothing to accept', async () => {
  const hs = await holdings(bob)
  expect('amount', sum(hs.map(h => h.interfaceViewValue.amount)), '30')
  expect('pending instructions', (await sdk.tokenStandard.fetchPendingTransferInstructionView()).length, 0)
})

// Holding transactions: what the SDK's transaction history reads.
await step('holding transactions', async () => {
  await sdk.setPartyId(alice)
  const txs = await sdk.tokenStandard.listHoldingTransactions()
  if (txs.transactions.length < 4) throw new Error(`${txs.transactions.length} holding transactions, want at least 4`)
})

// Merge: a self-transfer of every holding leaves one.
await step('merge holdings', async () => {
  const hs = await holdings(alice)
  if (hs.length < 2) throw new Error(`${hs.length} holdings to merge, want at least 2`)
  const total = sum(hs.map(h => h.interfaceViewValue.amount))
  const [cmd, dc] = await sdk.tokenStandard.createTransfer(alice, alice, total, coin, hs.map(h => h.contractId), 'merge')
  await as(alice, aliceKeys.privateKey, cmd, dc)
  const after = await holdings(alice)
  expect('holdings after the merge', after.length, 1)
})
console.log('DONE')

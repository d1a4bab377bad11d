// The wallet SDK's LocalNet defaults, unmodified, against `ccwallet serve
// --localnet` on LocalNet's ports: WalletSDKImpl's own factories
// (localNetAuthDefault, localNetLedgerDefault, localNetTokenStandardDefault,
// localValidatorDefault) for the app user, and localNetLedgerAppProvider,
// localNetTokenStandardAppProvider and localValidatorDefaultAppProvider
// for the app provider, with localNetStaticConfig's scan proxy and
// registry. Only a logger is configured, which the SDK requires. A party
// on each validator; the user's taps and sends the provider's a transfer
// instruction, which it accepts. Prints "OK name" per step, DONE at the
// end; TestLocalNetSDKDefaults (localnet_test.go) runs it.
//
// The defaults name wallet.localhost and scan.localhost, which browsers
// resolve to loopback but not every libc does (glibc without
// nss-myhostname does not): as RFC 6761 says of .localhost, this script
// resolves them to 127.0.0.1 itself, before the SDK loads. The SDK's code
// and URLs are untouched.
import dns from 'node:dns'

const lookup = dns.lookup
dns.lookup = function (host, options, callback) {
  if (typeof options === 'function') [callback, options] = [options, {}]
  if (typeof host === 'string' && host.endsWith('.localhost')) {
    const all = typeof options === 'object' && options?.all
    return process.nextTick(() => all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4))
  }
  return lookup.call(this, host, options, callback)
}

const {
  WalletSDKImpl, localNetStaticConfig, localNetLedgerAppProvider, localNetTokenStandardAppProvider,
  localValidatorDefaultAppProvider, createKeyPair,
} = await import('@canton-network/wallet-sdk')
const { pino } = await import('pino')
const { randomUUID } = await import('node:crypto')
const { step } = await import('./steps.mjs')

const logger = pino({ level: 'warn' })
const user = new WalletSDKImpl().configure({ logger })
const provider = new WalletSDKImpl().configure({
  logger, ledgerFactory: localNetLedgerAppProvider, tokenStandardFactory: localNetTokenStandardAppProvider,
  validatorFactory: localValidatorDefaultAppProvider,
})
await step('connect', async () => {
  for (const sdk of [user, provider]) {
    await sdk.connect()
    await sdk.connectAdmin()
    await sdk.connectTopology(localNetStaticConfig.LOCALNET_SCAN_PROXY_API_URL)
    sdk.tokenStandard.setTransferFactoryRegistryUrl(localNetStaticConfig.LOCALNET_REGISTRY_API_URL)
  }
})
const operators = await step('two validators', async () => {
  const ops = [await user.validator.getValidatorUser(), await provider.validator.getValidatorUser()]
  if (!ops[0] || ops[0] === ops[1]) throw new Error(`operators ${ops}`)
  return ops
})
const admin = await step('instrument admin', () => user.tokenStandard.getInstrumentAdmin())
const coin = { instrumentId: 'Amulet', instrumentAdmin: admin }
const aliceKeys = createKeyPair(), bobKeys = createKeyPair()
const alice = (await step('alice on the app user', () => user.userLedger.signAndAllocateExternalParty(aliceKeys.privateKey, 'defaults-alice'))).partyId
const bob = (await step('bob on the app provider', () => provider.userLedger.signAndAllocateExternalParty(bobKeys.privateKey, 'defaults-bob'))).partyId
async function as(sdk, party, key, [cmd, dc]) {
  await sdk.setPartyId(party)
  return sdk.userLedger.prepareSignExecuteAndWaitFor(cmd, key, randomUUID(), dc ?? [])
}
await step('alice taps', async () => {
  await user.setPartyId(alice)
  await as(user, alice, aliceKeys.privateKey, await user.tokenStandard.createTap(alice, '50', coin))
})
await step('alice sends bob a transfer instruction', async () => {
  await user.setPartyId(alice)
  await as(user, alice, aliceKeys.privateKey, await user.tokenStandard.createTransfer(alice, bob, '20', coin, [], 'defaults'))
})
await step('bob accepts on the app provider', async () => {
  await provider.setPartyId(bob)
  const ps = await provider.tokenStandard.fetchPendingTransferInstructionView()
  if (ps.length !== 1) throw new Error(`${ps.length} pending instructions for bob`)
  await as(provider, bob, bobKeys.privateKey, await provider.tokenStandard.exerciseTransferInstructionChoice(ps[0].contractId, 'Accept'))
  const hs = await provider.tokenStandard.listHoldingUtxos(false)
  if (hs.length !== 1 || Number(hs[0].interfaceViewValue.amount) !== 20) throw new Error(`bob holds ${JSON.stringify(hs.map(h => h.interfaceViewValue.amount))}`)
})
console.log('DONE')

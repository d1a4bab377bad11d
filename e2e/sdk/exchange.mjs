// The wallet integration guide's exchange flows, driven by the Canton
// Network wallet SDK (@canton-network/wallet-sdk) against `ccwallet serve
// --localnet` as against LocalNet: LocalNet's test authentication
// (localNetAuthDefault: HS256, ledger-api-user), the exchange on the app
// provider's validator and its customer on the app user's. Setup: the
// exchange's treasury party (external) on the provider, its featured app
// right (the provider's operator) and its transfer preapproval; a
// customer party on the user side, who taps. Then a one-step deposit, a
// one-step withdrawal, a multi-step deposit (the exchange accepts a
// transfer instruction) and a multi-step withdrawal (the customer
// accepts), each checked in the exchange's transaction log (holding
// transactions read through the provider's Ledger API) and in both
// parties' holdings. Every step prints "OK name" or "FAIL name: why"; the
// process exits non-zero at the first failure. TestLocalNetExchangeFlows
// (localnet_test.go) runs it.
//
// Environment: USER_LEDGER, PROVIDER_LEDGER (the two JSON Ledger APIs),
// USER_VALIDATOR, PROVIDER_VALIDATOR (the two validators' base URLs, whose
// /api/validator the SDK calls), SCAN (scan's /api/scan URL). Explicit
// 127.0.0.1 URLs, so resolving wallet.localhost does not matter.
import {
  WalletSDKImpl, LedgerController, TokenStandardController, ValidatorController, localNetAuthDefault, createKeyPair,
} from '@canton-network/wallet-sdk'
import { pino } from 'pino'
import { randomUUID } from 'node:crypto'
import { step, expect, sum } from './steps.mjs'

const env = process.env
const logger = pino({ level: 'warn' })

// validatorSDK is an SDK configured for one of the two validators.
function validatorSDK(ledger, validatorBase) {
  const lapi = new URL(ledger)
  const validator = new URL(validatorBase + '/api/validator')
  return new WalletSDKImpl().configure({
    logger,
    authFactory: localNetAuthDefault,
    ledgerFactory: (u, p, isAdmin) => new LedgerController(u, lapi, undefined, isAdmin, p),
    tokenStandardFactory: (u, p, isAdmin) => new TokenStandardController(u, lapi, validator, undefined, p, isAdmin, undefined, new URL(env.SCAN)),
    validatorFactory: (u, p) => new ValidatorController(u, validator, p, false),
  })
}

const exchange = validatorSDK(env.PROVIDER_LEDGER, env.PROVIDER_VALIDATOR)
const customerSide = validatorSDK(env.USER_LEDGER, env.USER_VALIDATOR)

async function as(sdk, party, key, cmds, dc) {
  await sdk.setPartyId(party)
  return sdk.userLedger.prepareSignExecuteAndWaitFor(cmds, key, randomUUID(), dc ?? [])
}
async function balance(sdk, party) {
  await sdk.setPartyId(party)
  const hs = await sdk.tokenStandard.listHoldingUtxos(false)
  return sum(hs.map(h => h.interfaceViewValue.amount))
}
// The exchange's transaction log: the treasury's holding transactions,
// read through the provider's Ledger API and parsed by the SDK's token
// standard parser, as the guide's exchange does. A command the treasury
// submitted shows as its root exercise (ccwallet stores it with the
// update), so the parser labels it a transfer: TransferOut for its
// withdrawals, TransferIn for a deposit it accepts, MergeSplit for the
// instruction it creates, each with the memo (reason) from the transfer's
// meta and the treasury's holding changes summed per instrument. What the
// treasury did not submit shows as the holdings created, locked and
// archived (the parser's Create, Lock and Archive events), except a
// one-step deposit through its preapproval: the treasury witnesses
// Splice's TransferPreapproval_Send, whose result carries the memo, so
// the parser reads a TransferIn.
// logged checks that the transactions the log gained since the last look
// change the treasury's holdings by exactly change and, when memo is
// given, that a transfer in them carries it.
let seenOffset = 0
const transferLabels = ['TransferIn', 'TransferOut', 'MergeSplit']
async function logged(treasury, change, memo) {
  await exchange.setPartyId(treasury)
  const txs = (await exchange.tokenStandard.listHoldingTransactions()).transactions ?? []
  const fresh = txs.filter(tx => tx.offset > seenOffset)
  if (fresh.length === 0) throw new Error(`no new transaction in the exchange's log after offset ${seenOffset}`)
  seenOffset = Math.max(...fresh.map(tx => tx.offset))
  const changes = []
  const memos = []
  for (const e of fresh.flatMap(tx => tx.events ?? [])) {
    const { type, payload, reason } = e.label ?? {}
    if (transferLabels.includes(type)) {
      memos.push(`${type}:${reason}`)
      for (const s of [...(e.unlockedHoldingsChangeSummaries ?? []), ...(e.lockedHoldingsChangeSummaries ?? [])]) changes.push(s.amountChange ?? '0')
      continue
    }
    if (payload?.owner !== treasury || payload?.amount === undefined) continue
    if (type === 'Create' || type === 'Lock') changes.push(payload.amount)
    if (type === 'Archive') changes.push('-' + payload.amount)
  }
  const seen = fresh.flatMap(tx => (tx.events ?? []).map(e => [tx.offset, e.label?.type, e.label?.reason, e.label?.payload?.amount, !!e.label?.payload?.lock]))
  expect(`the treasury's holdings change in the exchange's log ${JSON.stringify(seen)}`, sum(changes), change)
  if (memo !== undefined && !memos.some(m => m.endsWith(':' + memo))) {
    throw new Error(`no transfer with memo ${memo} in the exchange's log: ${JSON.stringify(seen)}`)
  }
  return memos
}
await step('connect both validators', async () => {
  for (const sdk of [exchange, customerSide]) {
    await sdk.connect()
    await sdk.connectAdmin()
  }
  // The registry as LocalNet's examples take it: the scan proxy of a
  // validator (localNetStaticConfig.LOCALNET_REGISTRY_API_URL).
  for (const [sdk, base] of [[exchange, env.PROVIDER_VALIDATOR], [customerSide, env.USER_VALIDATOR]]) {
    await sdk.connectTopology(new URL(base + '/api/validator'))
    sdk.tokenStandard.setTransferFactoryRegistryUrl(new URL(base + '/api/validator/v0/scan-proxy'))
  }
})
const admin = await step('instrument admin', () => exchange.tokenStandard.getInstrumentAdmin())
const coin = { instrumentId: 'Amulet', instrumentAdmin: admin }
const provider = await step('app provider operator', () => exchange.validator.getValidatorUser())
const userOperator = await step('app user operator', () => customerSide.validator.getValidatorUser())
await step('two validators', () => {
  if (provider === userOperator) throw new Error(`one operator ${provider} on both validators`)
})

// The exchange: treasury party on the provider, featured app right,
// preapproval.
const treasuryKeys = createKeyPair()
const treasury = (await step('treasury party on the app provider', () =>
  exchange.userLedger.signAndAllocateExternalParty(treasuryKeys.privateKey, 'exchange-treasury'))).partyId
await step('featured app right of the app provider', async () => {
  await exchange.setPartyId(provider)
  const right = await exchange.tokenStandard.grantFeatureAppRightsForInternalParty()
  if (!right) throw new Error('no featured app right for ' + provider)
})
await step('treasury preapproves transfers', async () => {
  await exchange.setPartyId(treasury)
  await as(exchange, treasury, treasuryKeys.privateKey, await exchange.userLedger.createTransferPreapprovalCommand(provider, treasury, admin))
  const pre = await exchange.tokenStandard.getTransferPreApprovalByParty(treasury, 'Amulet')
  if (!pre?.contractId) throw new Error('no preapproval for the treasury')
  // Nothing held yet: the log starts here.
  const txs = (await exchange.tokenStandard.listHoldingTransactions()).transactions ?? []
  seenOffset = Math.max(0, ...txs.map(tx => tx.offset))
})

// The customer, on the app user's validator, taps.
const customerKeys = createKeyPair()
const customer = (await step('customer party on the app user', () =>
  customerSide.userLedger.signAndAllocateExternalParty(customerKeys.privateKey, 'exchange-customer'))).partyId
await step('customer taps 1000', async () => {
  await customerSide.setPartyId(customer)
  const [cmd, dc] = await customerSide.tokenStandard.createTap(customer, '1000', coin)
  await as(customerSide, customer, customerKeys.privateKey, cmd, dc)
  expect('customer balance', await balance(customerSide, customer), '1000')
})

// One-step deposit: the treasury's preapproval takes it at once.
await step('one-step deposit', async () => {
  await customerSide.setPartyId(customer)
  const [cmd, dc] = await customerSide.tokenStandard.createTransfer(customer, treasury, '100', coin, [], 'deposit-1')
  await as(customerSide, customer, customerKeys.privateKey, cmd, dc)
  const inn = await logged(treasury, '100', 'deposit-1')
  if (!inn.includes('TransferIn:deposit-1')) throw new Error(`the deposit is not a TransferIn: ${inn}`)
  expect('treasury balance', await balance(exchange, treasury), '100')
  await exchange.setPartyId(treasury)
  expect('pending instructions', (await exchange.tokenStandard.fetchPendingTransferInstructionView()).length, 0)
})

// One-step withdrawal: the customer preapproves (its provider the app
// user's operator), the treasury sends.
await step('customer preapproves transfers', async () => {
  await customerSide.setPartyId(customer)
  await as(customerSide, customer, customerKeys.privateKey, await customerSide.userLedger.createTransferPreapprovalCommand(userOperator, customer, admin))
})
await step('one-step withdrawal', async () => {
  await exchange.setPartyId(treasury)
  const [cmd, dc] = await exchange.tokenStandard.createTransfer(treasury, customer, '40', coin, [], 'withdrawal-1')
  await as(exchange, treasury, treasuryKeys.privateKey, cmd, dc)
  const out = await logged(treasury, '-40', 'withdrawal-1')
  if (!out.includes('TransferOut:withdrawal-1')) throw new Error(`the withdrawal is not a TransferOut: ${out}`)
  expect('treasury balance', await balance(exchange, treasury), '60')
  expect('customer balance', await balance(customerSide, customer), '940')
})

// Multi-step: without preapprovals, a transfer is an instruction the
// receiver accepts.
async function cancelPreapproval(sdk, party, keys) {
  await sdk.setPartyId(party)
  const pre = await sdk.tokenStandard.getTransferPreApprovalByParty(party, 'Amulet')
  const [cmd, dc] = await sdk.tokenStandard.createCancelTransferPreapproval(pre.contractId, pre.templateId, party)
  await as(sdk, party, keys.privateKey, cmd, dc)
}
await step('preapprovals cancelled', async () => {
  await cancelPreapproval(exchange, treasury, treasuryKeys)
  await cancelPreapproval(customerSide, customer, customerKeys)
})
await step('multi-step deposit', async () => {
  await customerSide.setPartyId(customer)
  const [cmd, dc] = await customerSide.tokenStandard.createTransfer(customer, treasury, '200', coin, [], 'deposit-2')
  await as(customerSide, customer, customerKeys.privateKey, cmd, dc)
  await exchange.setPartyId(treasury)
  const pending = await exchange.tokenStandard.fetchPendingTransferInstructionView()
  expect('pending instructions', pending.length, 1)
  expect('instructed amount', sum([pending[0].interfaceViewValue.transfer.amount]), '200')
  expect('treasury balance before accepting', await balance(exchange, treasury), '60')
  await exchange.setPartyId(treasury)
  const [acc, adc] = await exchange.tokenStandard.exerciseTransferInstructionChoice(pending[0].contractId, 'Accept')
  await as(exchange, treasury, treasuryKeys.privateKey, acc, adc)
  const inn = await logged(treasury, '200', 'deposit-2')
  if (!inn.includes('TransferIn:deposit-2')) throw new Error(`the deposit is not a TransferIn: ${inn}`)
  expect('treasury balance', await balance(exchange, treasury), '260')
  expect('customer balance', await balance(customerSide, customer), '740')
})
await step('multi-step withdrawal', async () => {
  await exchange.setPartyId(treasury)
  const [cmd, dc] = await exchange.tokenStandard.createTransfer(treasury, customer, '30', coin, [], 'withdrawal-2')
  await as(exchange, treasury, treasuryKeys.privateKey, cmd, dc)
  await customerSide.setPartyId(customer)
  const pending = await customerSide.tokenStandard.fetchPendingTransferInstructionView()
  expect('pending instructions', pending.length, 1)
  const [acc, adc] = await customerSide.tokenStandard.exerciseTransferInstructionChoice(pending[0].contractId, 'Accept')
  await as(customerSide, customer, customerKeys.privateKey, acc, adc)
  await logged(treasury, '-30', 'withdrawal-2')
  expect('treasury balance', await balance(exchange, treasury), '230')
  expect('customer balance', await balance(customerSide, customer), '770')
})
console.log('DONE')

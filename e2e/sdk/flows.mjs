// flows.mjs drives the wallet integration guide's flows with the Canton
// Network wallet SDK (@canton-network/wallet-sdk, pinned in scripts/deps.sh)
// against one fresh `ccwallet serve` (the environment is lib.mjs's). Each
// step prints "step NAME ok"; the first failure prints the step and the
// error and exits 1.
import { newSDK, step, main, expect, total, commandId, Parties, validatorURL } from './lib.mjs'

const sdk = newSDK()
const ps = new Parties(sdk)
const parties = ps.byName
const onboard = (name) => ps.onboard(name)
const asParty = (name) => ps.as(name)
const holdingsOf = (name) => ps.holdings(name)
const run = (name, cmd, what, id) => ps.run(name, cmd, what, id)
const wantTotal = (name, amount, holdings) => ps.wantTotal(name, amount, holdings)

// offer makes a two-step transfer from alice to bob and returns the
// instruction as the receiver sees it.
async function offer(amount, memo) {
    const alice = parties['sdk-alice'].party
    const bob = parties['sdk-bob'].party
    await asParty('sdk-alice')
    await run('sdk-alice', await sdk.tokenStandard.createTransfer(alice, bob, amount, coin, [], memo), 'offer')
    await asParty('sdk-bob')
    const pending = await sdk.tokenStandard.fetchPendingTransferInstructionView()
    expect(pending.length === 1, `bob sees ${pending.length} pending transfers, want 1`)
    return pending[0]
}

const coin = { instrumentId: 'Amulet' }
const flows = (process.env.FLOWS || 'all').split(',')
const want = (f) => flows.includes('all') || flows.includes(f)

await main(async () => {
    await step('connect', async () => {
        await sdk.connect()
        await sdk.connectAdmin()
        // The synchronizer from the scan proxy's AmuletRules, as the guide does.
        await sdk.connectTopology(validatorURL)
    })

    await step('onboard', async () => {
        await onboard('sdk-alice')
        await onboard('sdk-bob')
        const wallets = await sdk.userLedger.listWallets()
        for (const n of ['sdk-alice', 'sdk-bob']) {
            expect(wallets.includes(parties[n].party), `listWallets ${JSON.stringify(wallets)} lacks ${n}`)
        }
    })

    await step('tap', async () => {
        await asParty('sdk-alice')
        coin.instrumentAdmin = await sdk.tokenStandard.getInstrumentAdmin()
        await run('sdk-alice', await sdk.tokenStandard.createTap(parties['sdk-alice'].party, '2000', coin), 'tap')
        const h = await holdingsOf('sdk-alice')
        expect(h.length === 1, `alice has ${h.length} holdings after one tap`)
        expect(total(h) === '2000.0000000000', `alice holds ${total(h)} after tapping 2000`)
        expect(h[0].interfaceViewValue.instrumentId.id === 'Amulet', `instrument ${JSON.stringify(h[0].interfaceViewValue.instrumentId)}`)
    })

    await step('holding-transactions', async () => {
        await asParty('sdk-alice')
        const txs = await sdk.tokenStandard.listHoldingTransactions()
        const list = txs.transactions ?? []
        expect(list.length >= 1, `holding transactions: ${JSON.stringify(txs).slice(0, 2000)}`)
    })

    await step('two-step-transfer-accept', async () => {
        const pending = await offer('100', 'sdk e2e accept')
        await run('sdk-bob', await sdk.tokenStandard.exerciseTransferInstructionChoice(pending.contractId, 'Accept'), 'accept')
        await wantTotal('sdk-bob', '100.0000000000', 1)
        await wantTotal('sdk-alice', '1900.0000000000')
    })

    await step('two-step-transfer-reject', async () => {
        const pending = await offer('50', 'sdk e2e reject')
        // The lock holds the 50 and the instruction's fee reserve (the
        // holding fees until its deadline, as Splice locks it): alice's
        // unlocked coin is at most 1850 while it is pending.
        const locked = total(await holdingsOf('sdk-alice'))
        expect(Number(locked) <= 1850, `sdk-alice holds ${locked} unlocked while 50 are offered, want at most 1850`)
        await run('sdk-bob', await sdk.tokenStandard.exerciseTransferInstructionChoice(pending.contractId, 'Reject'), 'reject')
        await wantTotal('sdk-bob', '100.0000000000', 1)
        await wantTotal('sdk-alice', '1900.0000000000')
    })

    await step('two-step-transfer-withdraw', async () => {
        const pending = await offer('30', 'sdk e2e withdraw')
        await asParty('sdk-alice')
        await run('sdk-alice', await sdk.tokenStandard.exerciseTransferInstructionChoice(pending.contractId, 'Withdraw'), 'withdraw')
        await asParty('sdk-bob')
        const left = await sdk.tokenStandard.fetchPendingTransferInstructionView()
        expect(left.length === 0, `bob sees ${left.length} pending transfers after the withdrawal`)
        await wantTotal('sdk-bob', '100.0000000000', 1)
        await wantTotal('sdk-alice', '1900.0000000000')
    })

    await step('idempotency', async () => {
        const id = commandId('tap-twice')
        const alice = parties['sdk-alice'].party
        await run('sdk-alice', await sdk.tokenStandard.createTap(alice, '7', coin), 'tap', id)
        let again
        try {
            await run('sdk-alice', await sdk.tokenStandard.createTap(alice, '7', coin), 'tap', id)
        } catch (err) {
            again = err
        }
        expect(again !== undefined, 'the same commandId ran twice')
        await wantTotal('sdk-alice', '1907.0000000000')
    })

    await step('merge-utxos', async () => {
        const alice = parties['sdk-alice'].party
        await run('sdk-alice', await sdk.tokenStandard.createTap(alice, '3', coin), 'tap')
        const before = await holdingsOf('sdk-alice')
        expect(before.length >= 3, `alice has ${before.length} holdings before merging`)
        await asParty('sdk-alice')
        const [commands, disclosed] = await sdk.tokenStandard.mergeHoldingUtxos()
        expect(commands.length === 1, `${commands.length} merge commands for ${before.length} holdings`)
        await run('sdk-alice', [commands[0], disclosed], 'merge')
        await wantTotal('sdk-alice', '1910.0000000000', 1)
    })

    await step('subscribe-websocket', async () => {
        // The stream of bob's holding updates over the Ledger API's
        // WebSocket, from the ledger's end: bob's next tap arrives on it.
        await asParty('sdk-bob')
        const end = await sdk.userLedger.ledgerEnd()
        const updates = sdk.userLedger.subscribeToUpdates({
            beginOffset: end.offset,
            interfaceIds: ['#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding'],
        })
        // Read until bob's tap of 5 arrives; fail after 20 s.
        const seen = (async () => {
            for await (const u of updates) {
                const text = JSON.stringify(u)
                if (text.includes('CreatedEvent') && text.includes('"5.0000000000"') && text.includes(parties['sdk-bob'].party)) {
                    return text
                }
            }
            throw new Error('the stream ended without bob\'s tap')
        })()
        seen.catch(() => {})
        await run('sdk-bob', await sdk.tokenStandard.createTap(parties['sdk-bob'].party, '5', coin), 'tap')
        let timer
        await Promise.race([
            seen,
            new Promise((_, reject) => {
                timer = setTimeout(() => reject(new Error('no update with bob\'s tap within 20 s')), 20000)
            }),
        ])
        clearTimeout(timer)
        await wantTotal('sdk-bob', '105.0000000000', 2)
    })

})

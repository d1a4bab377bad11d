// more.mjs drives the rest of the wallet integration guide's flows with the
// Canton Network wallet SDK against one fresh `ccwallet serve` (the
// environment is lib.mjs's, plus USER_TOKENS, a JSON object of tokens of
// the users the multi-user flow makes, by user id): offline signing,
// preapproval renew and cancel, a two-step transfer that expires, buying
// traffic, merging by delegation, an allocation (DvP through the trading
// app), a multi-user setup and ten concurrent executes of one prepared
// command. Each step prints "step NAME ok"; the first failure prints the
// step and the error and exits 1. e2e/sdk_more_test.go runs it.
import { newSDK, sdkPkg, step, main, expect, total, commandId, Parties, user, allocate } from './lib.mjs'

const { createKeyPair, signTransactionHash, TopologyController, LedgerController } = sdkPkg
const sdk = newSDK()
const ps = new Parties(sdk)
const coin = { instrumentId: 'Amulet' }
const flows = (process.env.FLOWS || 'all').split(',')
const want = (f) => flows.includes('all') || flows.includes(f)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

// tap mints amount for a party by its own signature.
async function tap(name, amount) {
    await ps.as(name)
    await ps.run(name, await sdk.tokenStandard.createTap(ps.party(name), amount, coin), 'tap')
}

// pendingFor lists the transfer instructions a party sees.
async function pendingFor(name) {
    await ps.as(name)
    return sdk.tokenStandard.fetchPendingTransferInstructionView()
}

// lockCounts counts a party's holdings the SDK sees locked and unlocked.
async function lockCounts(name) {
    const unlocked = (await ps.holdings(name, false)).map((h) => h.contractId)
    const all = await ps.holdings(name, true)
    const locked = all.filter((h) => !unlocked.includes(h.contractId)).length
    return { locked, unlocked: all.length - locked }
}

await main(async () => {
    let operator
    await step('connect', async () => {
        await sdk.connect()
        await sdk.connectAdmin()
        await sdk.connectTopology(new URL(process.env.WALLET_URL + '/api/validator'))
        operator = await sdk.validator.getValidatorUser()
    })

    // Offline signing: the keys, the signatures and the hashes' checks
    // happen apart from the online SDK's generate, prepare and execute.
    await step('offline-signing', async () => {
        const online = sdk.userLedger
        const aliceKeys = createKeyPair()
        const bobKeys = createKeyPair()
        const onboardOffline = async (keys, hint) => {
            const prepared = await online.generateExternalParty(keys.publicKey, hint)
            const recomputed = await TopologyController.computeTopologyTxHash(prepared.topologyTransactions)
            expect(recomputed === prepared.multiHash, `${hint}: recomputed topology hash ${recomputed}, the wallet's ${prepared.multiHash}`)
            const signed = signTransactionHash(prepared.multiHash, keys.privateKey)
            const party = await allocate(online, signed, prepared)
            ps.byName[hint] = { party: party.partyId, keys }
            return party.partyId
        }
        const alice = await onboardOffline(aliceKeys, 'off-alice')
        const bob = await onboardOffline(bobKeys, 'off-bob')
        // prepare online, check the hash and sign offline, execute online.
        const offline = async (name, [cmd, disclosed], keys) => {
            await ps.as(name)
            const prepared = await sdk.userLedger.prepareSubmission(cmd, commandId('offline'), disclosed)
            const recomputed = await TopologyController.createTransactionHash(prepared.preparedTransaction)
            expect(recomputed === prepared.preparedTransactionHash, `recomputed hash ${recomputed}, the wallet's ${prepared.preparedTransactionHash}`)
            const signed = signTransactionHash(prepared.preparedTransactionHash, keys.privateKey)
            const completion = await sdk.userLedger.executeSubmissionAndWaitFor(prepared, signed, keys.publicKey, commandId('offline-exec'))
            expect(!completion.status || !completion.status.code, `completion ${JSON.stringify(completion)}`)
        }
        await ps.as('off-alice')
        coin.instrumentAdmin = await sdk.tokenStandard.getInstrumentAdmin()
        await offline('off-alice', await sdk.tokenStandard.createTap(alice, '2000', coin), aliceKeys)
        await offline('off-alice', await sdk.tokenStandard.createTransfer(alice, bob, '100', coin, [], 'offline'), aliceKeys)
        const pending = await pendingFor('off-bob')
        expect(pending.length === 1, `bob sees ${pending.length} pending transfers, want 1`)
        await ps.as('off-bob')
        await offline('off-bob', await sdk.tokenStandard.exerciseTransferInstructionChoice(pending[0].contractId, 'Accept'), bobKeys)
        await ps.wantTotal('off-bob', '100.0000000000', 1)
    })

    if (want('preapproval')) {
        // Renew and cancel: the provider (the validator's operator, an
        // internal party) renews by submit-and-wait; the receiver cancels
        // by its own signature.
        await step('preapproval-renew-cancel', async () => {
            const receiver = await ps.onboard('pre-bob')
            await sdk.setPartyId(operator)
            await sdk.tokenStandard.createAndSubmitTapInternal(operator, '20000', coin)
            await ps.as('pre-bob')
            await ps.run('pre-bob', [await sdk.userLedger.createTransferPreapprovalCommand(operator, receiver, coin.instrumentAdmin), []], 'preapprove')
            const wait = (opts) => sdk.tokenStandard.waitForPreapprovalFromScanProxy(receiver, 'Amulet', { intervalMs: 200, timeoutMs: 10000, ...opts })
            const pre = await wait({})
            expect(pre?.contractId, 'no preapproval after the proposal')
            await sdk.setPartyId(operator)
            const [renew, renewDisclosed] = await sdk.tokenStandard.createRenewTransferPreapproval(pre.contractId, pre.templateId, operator)
            await sdk.userLedger.submitCommand(renew, commandId('renew'), renewDisclosed)
            const renewed = await wait({ oldCid: pre.contractId })
            expect(renewed.expiresAt.getTime() > pre.expiresAt.getTime(), `renewed expiry ${renewed.expiresAt.toISOString()}, before ${pre.expiresAt.toISOString()}`)
            await ps.as('pre-bob')
            const [cancel, cancelDisclosed] = await sdk.tokenStandard.createCancelTransferPreapproval(renewed.contractId, renewed.templateId, receiver)
            await ps.run('pre-bob', [cancel, cancelDisclosed], 'cancel')
            await wait({ expectGone: true })
        })
    }

    if (want('expire')) {
        // A two-step transfer with an expiry: while pending its coin is
        // locked; once expired the lock no longer counts, the instruction
        // stays until withdrawn, and the receiver cannot accept it.
        await step('two-step-transfer-expire', async () => {
            const alice = await ps.onboard('exp-alice')
            const bob = await ps.onboard('exp-bob')
            await tap('exp-alice', '1000')
            const expiry = new Date(Date.now() + 4000)
            await ps.as('exp-alice')
            await ps.run('exp-alice', await sdk.tokenStandard.createTransfer(alice, bob, '100', coin, undefined, 'expire', expiry), 'expiring')
            const before = await lockCounts('exp-alice')
            expect(before.locked === 1, `alice has ${before.locked} locked holdings while the transfer is pending, want 1`)
            const pending = await pendingFor('exp-bob')
            expect(pending.length === 1, `bob sees ${pending.length} pending transfers, want 1`)
            await sleep(Math.max(0, expiry.getTime() - Date.now()) + 1500)
            const after = await lockCounts('exp-alice')
            expect(after.locked === 0 && after.unlocked === before.unlocked + 1,
                `after the expiry alice has ${JSON.stringify(after)}, want 0 locked and ${before.unlocked + 1} unlocked`)
            // An expired instruction cannot be accepted.
            let refused
            try {
                await ps.run('exp-bob', await sdk.tokenStandard.exerciseTransferInstructionChoice(pending[0].contractId, 'Accept'), 'accept-expired')
            } catch (err) {
                refused = err
            }
            expect(refused, 'bob accepted an expired transfer')
            await ps.wantTotal('exp-bob', '0.0000000000', 0)
            // The sender withdraws it; all her coin is hers again.
            await ps.run('exp-alice', await sdk.tokenStandard.exerciseTransferInstructionChoice(pending[0].contractId, 'Withdraw'), 'withdraw-expired')
            expect((await pendingFor('exp-bob')).length === 0, 'the withdrawn instruction is still pending')
            const c = await lockCounts('exp-alice')
            expect(c.locked === 0, `alice has ${c.locked} locked holdings after the withdrawal`)
            // and spends it again: a new transfer that bob accepts.
            await ps.run('exp-alice', await sdk.tokenStandard.createTransfer(alice, bob, '100', coin, undefined, 'again'), 'again')
            const again = await pendingFor('exp-bob')
            expect(again.length === 1, `bob sees ${again.length} pending transfers, want 1`)
            await ps.run('exp-bob', await sdk.tokenStandard.exerciseTransferInstructionChoice(again[0].contractId, 'Accept'), 'accept')
            await ps.wantTotal('exp-bob', '100.0000000000', 1)
        })
    }

    if (want('traffic')) {
        // Buying traffic: an external party pays for this participant's
        // extra traffic; scan's traffic status shows the purchase.
        await step('buy-traffic', async () => {
            const buyer = await ps.onboard('traffic-alice')
            // The SDK picks inputs covering the traffic amount as if it were CC.
            await tap('traffic-alice', '300000')
            await ps.as('traffic-alice')
            const participant = await sdk.userLedger.getParticipantId()
            const before = await sdk.tokenStandard.getMemberTrafficStatus(participant)
            const held = total(await ps.holdings('traffic-alice'))
            await ps.run('traffic-alice', await sdk.tokenStandard.buyMemberTraffic(buyer, 200000, participant, []), 'buy-traffic')
            const after = await sdk.tokenStandard.getMemberTrafficStatus(participant)
            const bought = (s) => Number(s.traffic_status?.target?.total_purchased ?? s.actual?.total_purchased ?? s.total_purchased)
            const got = JSON.stringify({ before, after })
            expect(bought(after) - bought(before) === 200000, `traffic status ${got}: want 200000 more purchased`)
            const left = total(await ps.holdings('traffic-alice'))
            expect(Number(left) < Number(held), `alice holds ${left} after buying traffic, ${held} before`)
        })
    }

    if (want('merge-delegation')) {
        // Merging by delegation: the owner proposes, the operator accepts
        // and merges the owner's holdings through the batch utility.
        await step('merge-delegation', async () => {
            const owner = await ps.onboard('md-alice')
            // The SDK merges only 10 holdings or more.
            for (let i = 0; i < 12; i++) await tap('md-alice', '100')
            const before = await ps.holdings('md-alice')
            expect(before.length === 12, `alice has ${before.length} holdings after 12 taps`)
            await sdk.setPartyId(operator)
            await sdk.userLedger.submitCommand(await sdk.tokenStandard.createBatchMergeUtility(), commandId('batch-utility'))
            await ps.as('md-alice')
            await ps.run('md-alice', [await sdk.tokenStandard.createMergeDelegationProposal(operator), []], 'merge-proposal')
            await sdk.setPartyId(operator)
            const [approve, approveDisclosed] = await sdk.tokenStandard.approveMergeDelegationProposal(owner)
            await sdk.userLedger.submitCommand(approve, commandId('merge-approve'), approveDisclosed)
            const [merge, mergeDisclosed] = await sdk.tokenStandard.useMergeDelegations(owner)
            await sdk.userLedger.submitCommand(merge, commandId('merge'), mergeDisclosed)
            await ps.wantTotal('md-alice', '1200.0000000000', 1)
        })
    }

    if (want('allocation')) {
        // Allocation: an OTC trade through the token standard's test trading
        // app; alice and bob allocate their legs, the venue settles both.
        await step('allocation', async () => {
            const proposalT = '#splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:OTCTradeProposal'
            const tradeT = '#splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:OTCTrade'
            const uploaded = await sdk.userLedger.isPackageUploaded('e5c9847d5a88d3b8d65436f01765fc5ba142cc58529692e2dacdd865d9939f71')
            expect(uploaded, 'the trading app package is not listed by /v2/packages')
            const alice = await ps.onboard('dvp-alice')
            const bob = await ps.onboard('dvp-bob')
            const venue = await ps.onboard('dvp-venue')
            await tap('dvp-alice', '1000')
            await tap('dvp-bob', '1000')
            const cc = { admin: coin.instrumentAdmin, id: 'Amulet' }
            const transferLegs = {
                leg0: { sender: alice, receiver: bob, amount: '100', instrumentId: cc, meta: { values: {} } },
                leg1: { sender: bob, receiver: alice, amount: '20', instrumentId: cc, meta: { values: {} } },
            }
            await ps.run('dvp-alice', [{ CreateCommand: { templateId: proposalT, createArguments: { venue, tradeCid: null, transferLegs, approvers: [alice] } } }, []], 'propose')
            const activeOf = async (name, templateId) => {
                await ps.as(name)
                const acs = await sdk.userLedger.activeContracts({
                    offset: (await sdk.userLedger.ledgerEnd()).offset,
                    templateIds: [templateId],
                    parties: [ps.party(name)],
                    filterByParty: true,
                })
                const cid = LedgerController.getActiveContractCid(acs?.[0]?.contractEntry)
                expect(cid, `${name} sees no ${templateId}`)
                return cid
            }
            const proposal = await activeOf('dvp-bob', proposalT)
            await ps.run('dvp-bob', [[{ ExerciseCommand: { templateId: proposalT, contractId: proposal, choice: 'OTCTradeProposal_Accept', choiceArgument: { approver: bob } } }], []], 'approve')
            const proposal2 = await activeOf('dvp-venue', proposalT)
            const now = Date.now()
            await ps.run('dvp-venue', [[{ ExerciseCommand: { templateId: proposalT, contractId: proposal2, choice: 'OTCTradeProposal_InitiateSettlement',
                choiceArgument: { prepareUntil: new Date(now + 3600e3).toISOString(), settleBefore: new Date(now + 7200e3).toISOString() } } }], []], 'initiate')
            const trade = await activeOf('dvp-venue', tradeT)
            let settlementRef
            for (const name of ['dvp-alice', 'dvp-bob']) {
                await ps.as(name)
                const reqs = await sdk.tokenStandard.fetchPendingAllocationRequestView()
                expect(reqs.length === 1, `${name} sees ${reqs.length} allocation requests, want 1`)
                const view = reqs[0].interfaceViewValue
                settlementRef = view.settlement.settlementRef.id
                const legId = Object.keys(view.transferLegs).find((k) => view.transferLegs[k].sender === ps.party(name))
                expect(legId, `no leg of ${name}`)
                const leg = view.transferLegs[legId]
                await ps.run(name, await sdk.tokenStandard.createAllocationInstruction({ settlement: view.settlement, transferLegId: legId, transferLeg: leg }, leg.instrumentId.admin), 'allocate')
            }
            await ps.as('dvp-venue')
            const allocations = (await sdk.tokenStandard.fetchPendingAllocationView()).filter(
                (a) => a.interfaceViewValue.allocation.settlement.executor === venue && a.interfaceViewValue.allocation.settlement.settlementRef.id === settlementRef)
            expect(allocations.length === 2, `the venue sees ${allocations.length} allocations, want 2`)
            const withContext = {}
            const disclosed = new Map()
            for (const a of allocations) {
                const ctx = await sdk.tokenStandard.getAllocationExecuteTransferChoiceContext(a.contractId)
                withContext[a.interfaceViewValue.allocation.transferLegId] = {
                    _1: a.contractId,
                    _2: { context: { values: ctx.choiceContextData?.values ?? {} }, meta: { values: {} } },
                }
                for (const d of ctx.disclosedContracts ?? []) disclosed.set(d.contractId, d)
            }
            await ps.run('dvp-venue', [[{ ExerciseCommand: { templateId: tradeT, contractId: trade, choice: 'OTCTrade_Settle', choiceArgument: { allocationsWithContext: withContext } } }], [...disclosed.values()]], 'settle')
            await ps.wantTotal('dvp-alice', '920.0000000000')
            await ps.wantTotal('dvp-bob', '1080.0000000000')
            await ps.as('dvp-alice')
            const txs = await sdk.tokenStandard.listHoldingTransactions()
            expect((txs.transactions ?? []).length >= 2, `alice's holding transactions: ${JSON.stringify(txs).slice(0, 1000)}`)
        })
    }

    if (want('multi-user')) {
        // Several users: the operator allocates their primary parties and
        // makes the users; each user's SDK onboards an external party it
        // alone sees, and a master user with CanReadAsAnyParty sees all.
        await step('multi-user', async () => {
            const tokens = JSON.parse(process.env.USER_TOKENS || '{}')
            const admin = sdk.adminLedger
            const made = {}
            for (const u of ['mu-alice', 'mu-bob', 'mu-master']) {
                const party = await admin.allocateInternalParty(u)
                made[u] = await admin.createUser(u + '-user', party)
                expect(made[u].primaryParty === party, `user ${u}-user has primary party ${made[u].primaryParty}, want ${party}`)
            }
            await admin.grantMasterUserRights(made['mu-master'].id, true, true)
            const sdks = {}
            for (const u of ['mu-alice', 'mu-bob', 'mu-master']) {
                const id = u + '-user'
                expect(tokens[id], `no token for ${id}`)
                sdks[u] = newSDK(id, tokens[id])
                await sdks[u].connect()
                await sdks[u].connectTopology(new URL(process.env.WALLET_URL + '/api/validator'))
            }
            const ext = {}
            for (const u of ['mu-alice', 'mu-bob']) {
                const keys = createKeyPair()
                ext[u] = (await sdks[u].userLedger.signAndAllocateExternalParty(keys.privateKey, u + '-ext')).partyId
            }
            const master = await sdks['mu-master'].userLedger.listWallets()
            for (const u of ['mu-alice', 'mu-bob']) expect(master.includes(ext[u]), `the master user does not see ${ext[u]}: ${JSON.stringify(master)}`)
            const aliceSees = await sdks['mu-alice'].userLedger.listWallets()
            expect(aliceSees.includes(ext['mu-alice']), `alice's user does not see her party: ${JSON.stringify(aliceSees)}`)
            expect(!aliceSees.includes(ext['mu-bob']), `alice's user sees bob's party: ${JSON.stringify(aliceSees)}`)
            const bobSees = await sdks['mu-bob'].userLedger.listWallets()
            expect(!bobSees.includes(ext['mu-alice']), `bob's user sees alice's party: ${JSON.stringify(bobSees)}`)
            // The users are participant admins (the SDK's createUser makes
            // them so): bob's user grants itself reading alice's party.
            await sdks['mu-bob'].userLedger.grantRights([ext['mu-alice']])
            const bobAfter = await sdks['mu-bob'].userLedger.listWallets()
            expect(bobAfter.includes(ext['mu-alice']), `bob's user does not see alice's party after the grant: ${JSON.stringify(bobAfter)}`)
        })
    }

    if (want('idempotent-execute')) {
        // Ten concurrent executes of one prepared, signed command (the
        // guide's idempotency example): the command runs once. Each
        // execute that found it running waits for its completion (the
        // wallet names the running submission, as Canton does); one that
        // came after it sees a DUPLICATE_COMMAND completion of its own.
        await step('idempotent-execute', async () => {
            const alice = await ps.onboard('idem-alice')
            await ps.as('idem-alice')
            const prepared = await sdk.userLedger.prepareSubmission(sdk.userLedger.createPingCommand(alice), commandId('ping'))
            const keys = ps.keys('idem-alice')
            const signed = signTransactionHash(prepared.preparedTransactionHash, keys.privateKey)
            const results = await Promise.allSettled(
                Array.from({ length: 10 }, () => sdk.userLedger.executeSubmissionAndWaitFor(prepared, signed, keys.publicKey, commandId('ping-exec'))))
            const done = results.filter((r) => r.status === 'fulfilled').map((r) => JSON.stringify(r.value))
            expect(done.length >= 1, 'no execute completed')
            expect(done.every((d) => d === done[0]), `the completions differ: ${done.join('\n')}`)
            for (const r of results.filter((r) => r.status === 'rejected')) {
                const why = r.reason?.message ?? JSON.stringify(r.reason)
                expect(why.includes('DUPLICATE_COMMAND'), `an execute failed otherwise than as a duplicate: ${why}`)
            }
            const ping = sdk.userLedger.createPingCommand(alice)[0].CreateCommand
            const pings = await sdk.userLedger.activeContracts({
                offset: (await sdk.userLedger.ledgerEnd()).offset,
                templateIds: [ping.templateId],
                parties: [alice],
                filterByParty: true,
            })
            expect(pings.length === 1, `${pings.length} pings, want 1`)
            console.log(`idempotent-execute: ${done.length} of 10 waited for the one that ran`)
        })
    }
})

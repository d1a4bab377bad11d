// lib.mjs holds what the SDK scripts (flows.mjs, more.mjs) share: the
// Canton Network wallet SDK loaded from SDK_MODULES, an SDK configured
// against one ccwallet with a user's token, external parties onboarded by
// generate, sign and allocate, and exact sums of holdings. The scripts'
// environment:
//   SDK_MODULES  e2e/node/node_modules (where scripts/deps.sh installs it)
//   LEDGER_API   the wallet's JSON Ledger API
//   WALLET_URL   the wallet (validator API under /api/validator, scan under
//                /api/scan, the registry at the root)
//   TOKEN, USER_ID  a token of the wallet's admin user, and its id
import path from 'node:path'
import { pathToFileURL } from 'node:url'

// Polyfill: Object.groupBy is Node 21+; the SDK's holding code calls it
// and the e2e machines run Node 20.
if (typeof Object.groupBy !== 'function') {
    Object.groupBy = (items, key) => {
        const out = Object.create(null)
        let i = 0
        for (const item of items) {
            const k = key(item, i++)
            ;(out[k] ??= []).push(item)
        }
        return out
    }
}

export const env = (name) => {
    const v = process.env[name]
    if (!v) throw new Error(`${name} is not set`)
    return v
}
const modules = env('SDK_MODULES')
export const ledgerAPI = new URL(env('LEDGER_API'))
export const wallet = env('WALLET_URL').replace(/\/$/, '')
export const token = env('TOKEN')
export const user = env('USER_ID')
export const validatorURL = new URL(wallet + '/api/validator')
export const scanURL = new URL(wallet + '/api/scan')

export const sdkPkg = await import(
    pathToFileURL(path.join(modules, '@canton-network/wallet-sdk/dist/index.js'))
)
const { WalletSDKImpl, LedgerController, TokenStandardController, ValidatorController, createKeyPair, signTransactionHash } =
    sdkPkg

// logger keeps the SDK's warnings and errors (shown when a step fails) and
// drops its chatter.
export const logger = {
    trace() {},
    debug() {},
    info() {},
    warn: (...a) => console.log('sdk warn:', ...a),
    error: (...a) => console.log('sdk error:', ...a),
    fatal: (...a) => console.log('sdk fatal:', ...a),
    child() {
        return logger
    },
}

// newSDK configures the SDK for one user with a static token: the SDK asks
// its auth controller for the user's and the admin's token, both this one.
export function newSDK(userId = user, userToken = token) {
    const authFactory = () => ({
        userId,
        getUserToken: async () => ({ userId, accessToken: userToken }),
        getAdminToken: async () => ({ userId, accessToken: userToken }),
    })
    return new WalletSDKImpl().configure({
        logger,
        authFactory,
        ledgerFactory: (uid, provider, isAdmin) => new LedgerController(uid, ledgerAPI, undefined, isAdmin, provider),
        tokenStandardFactory: (uid, provider, isAdmin) =>
            new TokenStandardController(uid, ledgerAPI, validatorURL, undefined, provider, isAdmin, false, scanURL),
        validatorFactory: (uid, provider) => new ValidatorController(uid, validatorURL, provider),
    })
}

let current = ''
export async function step(name, fn) {
    current = name
    await fn()
    console.log(`step ${name} ok`)
}

// main runs the steps, printing the failed step with its error and
// exiting 1 on the first failure.
export async function main(fn) {
    try {
        await fn()
        console.log('all steps ok')
    } catch (err) {
        console.log(`step ${current} FAILED: ${err?.stack ?? err}`)
        if (err?.cause) console.log('cause:', err.cause)
        try {
            console.log('details:', JSON.stringify(err))
        } catch {}
        process.exit(1)
    }
}

export function expect(cond, what) {
    if (!cond) throw new Error(what)
}

// total sums the amounts of holdings exactly, as strings of 10 decimals.
export function total(holdings) {
    let sum = 0n
    for (const h of holdings) {
        const [i, f = ''] = h.interfaceViewValue.amount.split('.')
        sum += BigInt(i + f.padEnd(10, '0').slice(0, 10))
    }
    const s = sum.toString().padStart(11, '0')
    return s.slice(0, -10) + '.' + s.slice(-10)
}

// allocate is ledger.allocateExternalParty(signature, prepared) with its
// user rights granted by the same SDK calls, minus its sleeps: by default
// (expectHeavyLoad) the SDK polls for the new party every 5 s and sleeps
// one interval even when the party is there at once, as it is on
// ccwallet (5 s of nothing per party). So it allocates without granting,
// then runs the SDK's own waitForPartyAndGrantUserRights at a 50 ms
// interval: the same requests (the party looked up, then the rights
// granted) in the same order. guide.mjs keeps the guide's one-step call.
export async function allocate(ledger, signature, prepared) {
    const allocated = await ledger.allocateExternalParty(signature, prepared, false)
    expect(typeof ledger.client?.waitForPartyAndGrantUserRights === 'function',
        'the SDK no longer has LedgerClient.waitForPartyAndGrantUserRights: see allocate in lib.mjs')
    await ledger.client.waitForPartyAndGrantUserRights(ledger.userId, allocated.partyId, 200, 50)
    return allocated
}

let commandN = 0
export const commandId = (what) => `sdk-e2e-${what}-${Date.now()}-${++commandN}`

// Parties holds the external parties one SDK onboarded, by hint, with
// their keys, and runs commands as them.
export class Parties {
    constructor(sdk) {
        this.sdk = sdk
        this.byName = {}
    }
    party(name) {
        return this.byName[name].party
    }
    keys(name) {
        return this.byName[name].keys
    }
    // onboard generates the party's topology, signs its hash, allocates.
    async onboard(name) {
        const keys = createKeyPair()
        const generated = await this.sdk.userLedger.generateExternalParty(keys.publicKey, name)
        expect(generated.partyId.startsWith(name + '::'), `party id ${generated.partyId}`)
        const signature = signTransactionHash(generated.multiHash, keys.privateKey)
        const allocated = await allocate(this.sdk.userLedger, signature, generated)
        expect(allocated.partyId === generated.partyId, `allocated ${allocated.partyId}, generated ${generated.partyId}`)
        this.byName[name] = { party: generated.partyId, keys }
        return generated.partyId
    }
    // as points the SDK's controllers at one party.
    async as(name) {
        await this.sdk.setPartyId(this.party(name))
        // The registry (the token standard's) is served at the wallet's root.
        this.sdk.tokenStandard.setTransferFactoryRegistryUrl(new URL(wallet))
    }
    async holdings(name, includeLocked = false) {
        await this.as(name)
        return this.sdk.tokenStandard.listHoldingUtxos(includeLocked)
    }
    // run prepares, signs and executes [command, disclosed] as the party
    // and waits for its completion.
    async run(name, [command, disclosed], what, id = commandId(what)) {
        await this.as(name)
        return this.sdk.userLedger.prepareSignExecuteAndWaitFor(command, this.keys(name).privateKey, id, disclosed)
    }
    async wantTotal(name, amount, holdings) {
        const h = await this.holdings(name)
        expect(total(h) === amount, `${name} holds ${total(h)}, want ${amount}`)
        if (holdings !== undefined) {
            expect(h.length === holdings, `${name} has ${h.length} holdings, want ${holdings}`)
        }
    }
}

package ui

// The web wallet's pages are served by Handler and, by route group, by
// the types below, each the Handler under another name with the pages of
// its group (Routes hands their methods out): the house grows by rooms,
// not by methods on one type.

// adminPages serves the validator operator's pages: /admin (users,
// automations, network, view-as) and /delegations (minting delegations).
type adminPages struct{ *Handler }

// delegationPages serves /approvals: the user's transfer preapprovals,
// merge delegation and featured app right.
type delegationPages struct{ *Handler }

// paymentPages serves what apps ask a user to pay: /payments and
// /confirm-payment, /subscriptions and /confirm-subscription, and /names
// (a name is paid by a subscription).
type paymentPages struct{ *Handler }

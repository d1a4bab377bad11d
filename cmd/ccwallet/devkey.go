package main

import (
	"crypto/ed25519"
	"crypto/sha256"
)

// The embedded development network signs and accepts tokens with this key,
// derived from a published seed so `ccwallet token` works against any
// devnet instance. It is public knowledge: never trusted outside devnet.
const (
	devKeySeedText = "ccwallet development signing key - not secret"
	devKeyID       = "ccwallet-dev"
	devIssuer      = "ccwallet-dev"
)

func devKey() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte(devKeySeedText))
	return ed25519.NewKeyFromSeed(seed[:])
}

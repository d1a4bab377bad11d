package main

// The image's binary gets this package through -overlay (rootsFile); the
// import here keeps it in go.mod, so that build needs no download.
import _ "golang.org/x/crypto/x509roots/fallback"

package main

import (
	"context"
	"fmt"
	"io"
)

const devnetUsage = `Usage:
  ccwallet devnet tail [--party P] [--template T] [flags]  print every update the ledger commits

Development network only; works on the configured database directly.
`

// devnetCmd is `ccwallet devnet SUBCOMMAND`: the development network's
// tools.
func devnetCmd(ctx context.Context, args []string, env envVars, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, devnetUsage)
		return nil
	}
	if args[0] == "tail" {
		return devnetTail(ctx, args[1:], env, stdout, stderr)
	}
	fmt.Fprint(stderr, devnetUsage)
	return fmt.Errorf("devnet: unknown command %q", args[0])
}

// Package deploy holds no code: its tests check what an operator deploys
// from this folder (the Helm chart, the compose file, the Grafana
// dashboards) against the ccwallet binary built from this tree.
package deploy

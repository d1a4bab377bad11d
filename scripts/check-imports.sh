#!/usr/bin/env bash
# Imports point one way (STYLE.md section 2):
#   handlers, ledgerapi, jobs -> ledger -> store -> coin;  views -> ledger, coin;  web, coin, apispec -> nothing of ours.
#   store/pgbatch (the Postgres fast path) -> store, coin only: nothing of the ledger's rules;
#   the ledger and its workflow packages do not pick it (cmd passes it as ledger.Config.Writer;
#   ledger/ledgertest does for tests).
set -euo pipefail
mod=$(go list -m)
fail=0
while read -r pkg imports; do
  rel=${pkg#"$mod"/}
  for imp in $imports; do
    case "$imp" in "$mod"/*) ;; net/http) ;; *) continue ;; esac
    irel=${imp#"$mod"/}
    bad=""
    case "$rel" in
      handlers*|ledgerapi*|jobs*|views*|web*) [[ $irel == store || $irel == store/* ]] && [[ $irel != store/pgtest ]] && bad=1 ;;
    esac
    case "$rel" in
      store/pgbatch|store/pgbatch/*) [[ $irel != store && $irel != coin ]] && bad=1 ;;
      ledger/ledgertest) [[ $irel == net/http || $irel == views* || $irel == web* || $irel == handlers* || $irel == ledgerapi* || $irel == jobs* ]] && bad=1 ;;
      ledger|ledger/*) [[ $irel == net/http || $irel == views* || $irel == web* || $irel == handlers* || $irel == ledgerapi* || $irel == jobs* || $irel == store/pgbatch* ]] && bad=1 ;;
      store|store/*) [[ $irel == ledger || $irel == ledgerapi* || $irel == handlers* || $irel == jobs* || $irel == views* || $irel == web* ]] && bad=1 ;;
      web|web/*|apispec|apispec/*) [[ $irel != net/http ]] && bad=1 ;;
      views|views/*) [[ $irel == handlers* || $irel == ledgerapi* || $irel == jobs* || $irel == web* ]] && bad=1 ;;
      coin|coin/*) [[ $irel != net/http ]] && bad=1 ;;
    esac
    if [[ -n $bad ]]; then echo "forbidden import: $rel -> $irel"; fail=1; fi
  done
done < <(go list -f '{{.ImportPath}} {{join .Imports " "}}' ./...)
exit $fail

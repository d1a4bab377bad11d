#!/usr/bin/env bash
# Imports point one way (STYLE.md section 2):
#   handlers (and handlers/api, handlers/ui, handlers/shared), ledgerapi, jobs -> ledger -> store -> coin;
#   views -> ledger, coin;  web -> internal/* only;  coin, apispec, internal/* -> nothing of ours.
#   handlers/api and handlers/ui never import each other: they share handlers/shared.
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
      web|web/*) [[ $irel != net/http && $irel != internal/* ]] && bad=1 ;;
      apispec|apispec/*|internal/*) [[ $irel != net/http ]] && bad=1 ;;
      handlers/api|handlers/api/*) [[ $irel == handlers/ui* || $irel == handlers ]] && bad=1 ;;
      handlers/ui|handlers/ui/*) [[ $irel == handlers/api* || $irel == handlers ]] && bad=1 ;;
      handlers/shared|handlers/shared/*) [[ $irel == handlers || $irel == handlers/api* || $irel == handlers/ui* ]] && bad=1 ;;
      views|views/*) [[ $irel == handlers* || $irel == ledgerapi* || $irel == jobs* || $irel == web* ]] && bad=1 ;;
      coin|coin/*) [[ $irel != net/http ]] && bad=1 ;;
    esac
    if [[ -n $bad ]]; then echo "forbidden import: $rel -> $irel"; fail=1; fi
  done
done < <(go list -f '{{.ImportPath}} {{join .Imports " "}}' ./...)
exit $fail

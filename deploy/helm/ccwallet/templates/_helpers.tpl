{{- define "ccwallet.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}{{ .Release.Name | trunc 63 | trimSuffix "-" }}{{- else -}}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{- define "ccwallet.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ccwallet.labels" -}}
{{ include "ccwallet.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Where the pod finds its files. */}}
{{- define "ccwallet.configPath" -}}/etc/ccwallet/values.yaml{{- end -}}
{{- define "ccwallet.dbSecretDir" -}}/etc/ccwallet/secrets/db{{- end -}}
{{- define "ccwallet.dbTLSDir" -}}/etc/ccwallet/db-tls{{- end -}}
{{- define "ccwallet.tlsDir" -}}/etc/ccwallet/tls{{- end -}}
{{- define "ccwallet.healthTLSDir" -}}/etc/ccwallet/health-tls{{- end -}}
{{- define "ccwallet.metricsTLSDir" -}}/etc/ccwallet/metrics-tls{{- end -}}

{{/*
The wallet's values file: the seed's keys as the operator gave them, the
secrets replaced by the paths they are mounted at, the ports fixed.
*/}}
{{- define "ccwallet.walletValues" -}}
{{- $v := .Values -}}
{{- if not $v.validatorPartyHint }}{{ fail "validatorPartyHint is required (<organization>-<function>-<enumerator>, e.g. acme-validator-1)" }}{{ end -}}
{{- if not $v.validatorWalletUsers }}{{ fail "validatorWalletUsers is required: the identity provider's user IDs of the wallet admins" }}{{ end -}}
{{- if and (gt (int $v.replicaCount) 1) (not $v.persistence.host) }}{{ fail "replicaCount > 1 needs Postgres (persistence.host): the embedded SQLite file belongs to one pod" }}{{ end -}}
{{- if and (eq $v.network "production") $v.enableWallet (not $v.oidc.issuer) }}{{ fail "oidc.issuer is required with network: production (the web wallet's login)" }}{{ end -}}
{{- if and (eq $v.network "production") $v.enableWallet (not $v.oidc.secretName) }}{{ fail "oidc.secretName is required with network: production (a Secret with the OIDC client secret and the session secret)" }}{{ end -}}
{{- $c := dict
  "network" $v.network
  "validatorPartyHint" $v.validatorPartyHint
  "validatorWalletUsers" $v.validatorWalletUsers
  "enableWallet" $v.enableWallet
  "enableHealthProbes" $v.enableHealthProbes
  "listen" ":8080"
  "healthListen" ":5003"
  "metrics" (dict "enable" $v.metrics.enable "listen" ":10013")
  "ledgerApiListen" (ternary ":7575" "" (eq (toString $v.ledgerApi.enable) "true"))
  "topup" $v.topup
  "migration" $v.migration
-}}
{{- range $k := list "nodeIdentifier" "contactPoint" "publicUrl" "svSponsorAddress" "scanAddress" "decentralizedSynchronizerUrl" "nonSvValidatorTrustSingleScan" -}}
{{- if index $v $k }}{{ $_ := set $c $k (index $v $k) }}{{ end -}}
{{- end -}}
{{- if not $v.useSequencerConnectionsFromScan }}{{ $_ := set $c "useSequencerConnectionsFromScan" false }}{{ end -}}
{{- $auth := dict -}}
{{- range $k, $x := $v.auth }}{{ if $x }}{{ $_ := set $auth $k $x }}{{ end }}{{ end -}}
{{- if $auth }}{{ $_ := set $c "auth" $auth }}{{ end -}}
{{- if $v.participantPruningSchedule }}{{ $_ := set $c "participantPruningSchedule" $v.participantPruningSchedule }}{{ end -}}
{{- if $v.walletSweep }}{{ $_ := set $c "walletSweep" $v.walletSweep }}{{ end -}}
{{- if $v.autoAcceptTransfers }}{{ $_ := set $c "autoAcceptTransfers" $v.autoAcceptTransfers }}{{ end -}}
{{- $dbv := dict -}}
{{- range $k, $x := ($v.db | default dict) }}{{ if $x }}{{ $_ := set $dbv $k $x }}{{ end }}{{ end -}}
{{- if $dbv }}{{ $_ := set $c "db" $dbv }}{{ end -}}
{{- $p := $v.persistence -}}
{{- if $p.host -}}
{{- $db := dict "host" $p.host "port" $p.port "databaseName" $p.databaseName "schema" $p.schema "user" $p.user -}}
{{- if $p.secretName }}{{ $_ := set $db "secretName" (printf "%s/password" (include "ccwallet.dbSecretDir" .)) }}{{ end -}}
{{- if $p.sslmode }}{{ $_ := set $db "sslmode" $p.sslmode }}{{ end -}}
{{- if $p.sslSecretName -}}
{{- $_ := set $db "sslrootcert" (printf "%s/ca.crt" (include "ccwallet.dbTLSDir" .)) -}}
{{- if $p.sslClientCert }}{{ $_ := set $db "sslcert" (printf "%s/tls.crt" (include "ccwallet.dbTLSDir" .)) }}{{ $_ := set $db "sslkey" (printf "%s/tls.key" (include "ccwallet.dbTLSDir" .)) }}{{ end -}}
{{- end -}}
{{- if $p.maxOpenConns }}{{ $_ := set $db "maxOpenConns" $p.maxOpenConns }}{{ end -}}
{{- $_ := set $c "persistence" $db -}}
{{- else -}}
{{- $_ := set $c "persistence" (dict "sqlitePath" "/var/lib/ccwallet/data/ccwallet.db") -}}
{{- end -}}
{{- $o := $v.oidc -}}
{{- if $o.issuer -}}
{{- $oidc := dict "issuer" $o.issuer "clientId" $o.clientId "scopes" $o.scopes "secureCookies" $o.secureCookies -}}
{{- if $o.redirectUrl }}{{ $_ := set $oidc "redirectUrl" $o.redirectUrl }}{{ end -}}
{{- if $o.userClaim }}{{ $_ := set $oidc "userClaim" $o.userClaim }}{{ end -}}
{{- $_ := set $c "oidc" $oidc -}}
{{- end -}}
{{- if $v.tls.secretName -}}
{{- $dir := include "ccwallet.tlsDir" . -}}
{{- $tls := dict "cert-chain-file" (printf "%s/tls.crt" $dir) "private-key-file" (printf "%s/tls.key" $dir) "client-auth" (dict "type" $v.tls.clientAuth) -}}
{{- if ne $v.tls.clientAuth "none" }}{{ $_ := set $tls "trust-collection-file" (printf "%s/ca.crt" $dir) }}{{ end -}}
{{- if $v.tls.minimumServerProtocolVersion }}{{ $_ := set $tls "minimum-server-protocol-version" $v.tls.minimumServerProtocolVersion }}{{ end -}}
{{- $_ := set $c "tls" $tls -}}
{{- end -}}
{{- if $v.healthTls.secretName -}}
{{- $dir := include "ccwallet.healthTLSDir" . -}}
{{- $_ := set $c "healthTls" (dict "cert-chain-file" (printf "%s/tls.crt" $dir) "private-key-file" (printf "%s/tls.key" $dir)) -}}
{{- end -}}
{{- if $v.metrics.tls.secretName -}}
{{- $dir := include "ccwallet.metricsTLSDir" . -}}
{{- $m := get $c "metrics" | default dict -}}
{{- $_ := set $m "tls" (dict "cert-chain-file" (printf "%s/tls.crt" $dir) "private-key-file" (printf "%s/tls.key" $dir)) -}}
{{- $_ := set $c "metrics" $m -}}
{{- end -}}
{{- toYaml (mergeOverwrite $c (deepCopy $v.walletConfig)) -}}
{{- end -}}

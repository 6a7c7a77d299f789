{{/*
Names. Namespaced names stay within 63 characters (DNS labels); suffixed names cut the base
first so that a long release name never makes two objects share a name.
*/}}
{{- define "diagnose-bot.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "diagnose-bot.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "diagnose-bot.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "diagnose-bot.redisName" -}}
{{- printf "%s-redis" (include "diagnose-bot.fullname" . | trunc 57 | trimSuffix "-") }}
{{- end }}

{{- define "diagnose-bot.policyName" -}}
{{- printf "%s-policy" (include "diagnose-bot.fullname" . | trunc 56 | trimSuffix "-") }}
{{- end }}

{{/*
Labels. Selectors carry name, instance and component, so the bot's and Redis's pods never match
each other's Service or PodDisruptionBudget.
*/}}
{{- define "diagnose-bot.metaLabels" -}}
helm.sh/chart: {{ include "diagnose-bot.chart" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: diagnose-bot
{{- end }}

{{- define "diagnose-bot.selectorLabels" -}}
app.kubernetes.io/name: {{ include "diagnose-bot.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: bot
{{- end }}

{{- define "diagnose-bot.labels" -}}
{{ include "diagnose-bot.selectorLabels" . }}
{{ include "diagnose-bot.metaLabels" . }}
{{- end }}

{{- define "diagnose-bot.redisSelectorLabels" -}}
app.kubernetes.io/name: {{ include "diagnose-bot.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: redis
{{- end }}

{{- define "diagnose-bot.redisLabels" -}}
{{ include "diagnose-bot.redisSelectorLabels" . }}
{{ include "diagnose-bot.metaLabels" . }}
{{- end }}

{{/*
The Slack connection mode, validated: "http" or "socket".
*/}}
{{- define "diagnose-bot.mode" -}}
{{- if or (eq .Values.mode "http") (eq .Values.mode "socket") }}
{{- .Values.mode }}
{{- else }}
{{- fail (printf "mode must be \"http\" or \"socket\" (got %v)" .Values.mode) }}
{{- end }}
{{- end }}

{{/*
Where the queue and the state live: "sqlite" (one pod, two containers, a PVC) or "redis" (the web
side and the worker as Deployments of their own).
*/}}
{{- define "diagnose-bot.state" -}}
{{- $auto := "sqlite" }}
{{- if or .Values.redis.enabled .Values.externalRedis.url .Values.externalRedis.existingSecret }}
{{- $auto = "redis" }}
{{- end }}
{{- $state := default $auto .Values.state }}
{{- if eq $state "sqlite" }}
{{- if or .Values.redis.enabled .Values.externalRedis.url .Values.externalRedis.existingSecret }}
{{- fail "state: sqlite keeps everything in one pod's SQLite file: unset redis.enabled and externalRedis, or use state: redis" }}
{{- end }}
{{- else if eq $state "redis" }}
{{- if not (or .Values.redis.enabled .Values.externalRedis.url .Values.externalRedis.existingSecret) }}
{{- fail "state: redis needs a Redis: set redis.enabled=true (bundled Redis), externalRedis.url, or externalRedis.existingSecret" }}
{{- end }}
{{- else }}
{{- fail (printf "state must be \"sqlite\" or \"redis\" (got %v)" .Values.state) }}
{{- end }}
{{- $state }}
{{- end }}

{{/*
Web replicas actually run: one with SQLite (one pod holds the state) and in Socket Mode (one
connection); web.replicas with Redis over HTTP. Several replicas without Redis fail clearly.
*/}}
{{- define "diagnose-bot.webReplicas" -}}
{{- $state := include "diagnose-bot.state" . }}
{{- if and (eq $state "sqlite") (gt (int .Values.web.replicas) 1) }}
{{- fail "web.replicas > 1 needs a shared Redis for the queue and the conversation state: set redis.enabled=true (bundled Redis), externalRedis.url, or externalRedis.existingSecret" }}
{{- end }}
{{- if or (eq $state "sqlite") (eq (include "diagnose-bot.mode" .) "socket") }}1{{ else }}{{ int .Values.web.replicas }}{{ end }}
{{- end }}

{{- define "diagnose-bot.workerReplicas" -}}
{{- if eq (include "diagnose-bot.state" .) "sqlite" }}1{{ else }}{{ int .Values.worker.replicas }}{{ end }}
{{- end }}

{{/*
Pod labels by part: "bot" (the single SQLite pod), "web" and "worker" (with Redis).
*/}}
{{- define "diagnose-bot.baseSelectorLabels" -}}
app.kubernetes.io/name: {{ include "diagnose-bot.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "diagnose-bot.webSelectorLabels" -}}
{{ include "diagnose-bot.baseSelectorLabels" . }}
app.kubernetes.io/component: {{ if eq (include "diagnose-bot.state" .) "sqlite" }}bot{{ else }}web{{ end }}
{{- end }}

{{- define "diagnose-bot.workerSelectorLabels" -}}
{{ include "diagnose-bot.baseSelectorLabels" . }}
app.kubernetes.io/component: worker
{{- end }}

{{- define "diagnose-bot.webLabels" -}}
{{ include "diagnose-bot.webSelectorLabels" . }}
{{ include "diagnose-bot.metaLabels" . }}
{{- end }}

{{- define "diagnose-bot.workerLabels" -}}
{{ include "diagnose-bot.workerSelectorLabels" . }}
{{ include "diagnose-bot.metaLabels" . }}
{{- end }}

{{- define "diagnose-bot.stateName" -}}
{{- printf "%s-state" (include "diagnose-bot.fullname" . | trunc 57 | trimSuffix "-") }}
{{- end }}

{{- define "diagnose-bot.webName" -}}
{{- if eq (include "diagnose-bot.state" .) "sqlite" }}
{{- include "diagnose-bot.fullname" . }}
{{- else }}
{{- printf "%s-web" (include "diagnose-bot.fullname" . | trunc 59 | trimSuffix "-") }}
{{- end }}
{{- end }}

{{- define "diagnose-bot.workerName" -}}
{{- printf "%s-worker" (include "diagnose-bot.fullname" . | trunc 56 | trimSuffix "-") }}
{{- end }}

{{/*
The Secret holding tokens and keys: the chart's own, or the operator's existing one.
*/}}
{{- define "diagnose-bot.secretName" -}}
{{- if .Values.secrets.create }}
{{- include "diagnose-bot.fullname" . }}
{{- else }}
{{- required "secrets.existingSecret is required when secrets.create is false: the name of a Secret holding SLACK_BOT_TOKEN and the other keys" .Values.secrets.existingSecret }}
{{- end }}
{{- end }}

{{- define "diagnose-bot.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "diagnose-bot.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The Redis password, as a container env entry: the bundled Redis's, from redis.auth.existingSecret
or the chart's Secret (key REDIS_PASSWORD).
*/}}
{{- define "diagnose-bot.redisPasswordEnv" -}}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      {{- if .Values.redis.auth.existingSecret }}
      name: {{ .Values.redis.auth.existingSecret }}
      key: {{ default "REDIS_PASSWORD" .Values.redis.auth.existingSecretKey }}
      {{- else }}
      name: {{ include "diagnose-bot.secretName" . }}
      key: REDIS_PASSWORD
      {{- end }}
{{- end }}

{{/*
REDIS_URL (container env entries), or nothing with SQLite.
*/}}
{{- define "diagnose-bot.redisEnv" -}}
{{- if .Values.redis.enabled }}
{{- if and .Values.secrets.create (not .Values.redis.auth.existingSecret) (not .Values.secrets.values.REDIS_PASSWORD) }}
{{- fail "redis.enabled needs a password: set secrets.values.REDIS_PASSWORD (or redis.auth.existingSecret)" }}
{{- end }}
{{ include "diagnose-bot.redisPasswordEnv" . }}
- name: REDIS_URL
  value: {{ printf "redis://:$(REDIS_PASSWORD)@%s:%v/0" (include "diagnose-bot.redisName" .) .Values.redis.port | quote }}
{{- else if .Values.externalRedis.existingSecret }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.externalRedis.existingSecret }}
      key: {{ default "REDIS_URL" .Values.externalRedis.existingSecretKey }}
{{- else if .Values.externalRedis.url }}
{{- if not .Values.secrets.create }}
{{- fail "externalRedis.url is stored in the chart's Secret, which secrets.create=false turns off: put REDIS_URL in a Secret and set externalRedis.existingSecret instead" }}
{{- end }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "diagnose-bot.secretName" . }}
      key: REDIS_URL
{{- end }}
{{- end }}

{{/*
What both containers read: the policy, the state directory, the platforms' keys and settings,
the shared state. Slack's tokens are added by each container (bot token, and the web side's own).
*/}}
{{- define "diagnose-bot.commonEnv" -}}
{{- $secretName := include "diagnose-bot.secretName" . -}}
- name: DIAGNOSE_POLICY
  value: /etc/diagnose/policy.yaml
- name: DIAGNOSE_STATE_DIR
  value: /var/lib/diagnose
# Tokens and keys: only from the Secret. A required key missing from it keeps the pod in
# CreateContainerConfigError naming the key; optional ones just stay unset.
- name: SLACK_BOT_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ $secretName }}
      key: SLACK_BOT_TOKEN
{{- range $key := list "RUNAI_CLIENT_ID" "RUNAI_CLIENT_SECRET" "HUAWEICLOUD_SDK_AK" "HUAWEICLOUD_SDK_SK" "HUAWEICLOUD_SDK_PROJECT_ID" }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $secretName }}
      key: {{ $key }}
      optional: true
{{- end }}
{{- with include "diagnose-bot.redisEnv" . }}
{{ . }}
{{- end }}
{{- with .Values.runai.url }}
- name: RUNAI_URL
  value: {{ . | quote }}
{{- end }}
{{- with .Values.modelarts.region }}
- name: DIAGNOSE_MODELARTS_REGION
  value: {{ . | quote }}
{{- end }}
{{- range $region, $endpoint := .Values.modelarts.endpoints }}
- name: {{ printf "HUAWEICLOUD_SDK_REGION_MODELARTS_%s" ($region | upper | replace "-" "_") }}
  value: {{ $endpoint | quote }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

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
Replicas actually run: Socket Mode is a single connection with local state, so always 1.
*/}}
{{- define "diagnose-bot.replicas" -}}
{{- if eq (include "diagnose-bot.mode" .) "socket" }}1{{ else }}{{ int .Values.replicaCount }}{{ end }}
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
REDIS_URL (a container env entry), or nothing with a single replica and no Redis configured.
Several replicas without Redis would each keep their own conversation state and answer the same
Slack event twice, so rendering stops with a clear message instead.
*/}}
{{- define "diagnose-bot.redisEnv" -}}
{{- if .Values.redis.enabled }}
- name: REDIS_URL
  value: {{ printf "redis://%s:%v/0" (include "diagnose-bot.redisName" .) .Values.redis.port | quote }}
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
{{- else if gt (int (include "diagnose-bot.replicas" .)) 1 }}
- name: REDIS_URL
  value: {{ required "replicaCount > 1 needs a shared Redis for conversation state and event de-duplication: set redis.enabled=true (bundled Redis), externalRedis.url, or externalRedis.existingSecret" .Values.externalRedis.url }}
{{- end }}
{{- end }}

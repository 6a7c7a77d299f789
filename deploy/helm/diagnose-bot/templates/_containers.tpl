{{/*
The two containers of the bot, one image: the web side (the HTTP server, or the Socket Mode
connection) and the worker. Kubernetes restarts each; nothing supervises inside a container.
*/}}
{{- define "diagnose-bot.webContainer" -}}
{{- $mode := include "diagnose-bot.mode" . -}}
- name: web
  image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  args:
    - bot
    - --role
    - web
    {{- if eq $mode "http" }}
    - --http
    - --port
    - {{ int .Values.containerPort | quote }}
    - --threads
    - {{ int .Values.web.threads | quote }}
    {{- end }}
    {{- range .Values.extraArgs }}
    - {{ . | quote }}
    {{- end }}
  {{- if eq $mode "http" }}
  ports:
    - name: http
      containerPort: {{ int .Values.containerPort }}
      protocol: TCP
  livenessProbe:
    httpGet:
      path: /healthz
      port: http
    {{- toYaml .Values.probes.liveness | nindent 4 }}
  readinessProbe:
    httpGet:
      path: /healthz
      port: http
    {{- toYaml .Values.probes.readiness | nindent 4 }}
  {{- end }}
  env:
    {{- include "diagnose-bot.commonEnv" . | nindent 4 }}
    {{- if eq $mode "http" }}
    - name: SLACK_SIGNING_SECRET
      valueFrom:
        secretKeyRef:
          name: {{ include "diagnose-bot.secretName" . }}
          key: SLACK_SIGNING_SECRET
    {{- else }}
    - name: SLACK_APP_TOKEN
      valueFrom:
        secretKeyRef:
          name: {{ include "diagnose-bot.secretName" . }}
          key: SLACK_APP_TOKEN
    {{- end }}
  volumeMounts:
    {{- include "diagnose-bot.volumeMounts" . | nindent 4 }}
  resources:
    {{- toYaml .Values.web.resources | nindent 4 }}
  securityContext:
    {{- toYaml .Values.securityContext | nindent 4 }}
{{- end }}

{{- define "diagnose-bot.workerContainer" -}}
- name: worker
  image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  args:
    - bot
    - --role
    - worker
    - --health-port
    - {{ int .Values.worker.healthPort | quote }}
    {{- range .Values.extraArgs }}
    - {{ . | quote }}
    {{- end }}
  ports:
    - name: worker-health
      containerPort: {{ int .Values.worker.healthPort }}
      protocol: TCP
  livenessProbe:
    httpGet:
      path: /healthz
      port: worker-health
    {{- toYaml .Values.probes.liveness | nindent 4 }}
  readinessProbe:
    httpGet:
      path: /healthz
      port: worker-health
    {{- toYaml .Values.probes.readiness | nindent 4 }}
  env:
    {{- include "diagnose-bot.commonEnv" . | nindent 4 }}
    - name: DIAGNOSE_BOT_WORKERS
      value: {{ int .Values.worker.diagnosisThreads | quote }}
    - name: DIAGNOSE_BOT_CHAT_THREADS
      value: {{ int .Values.worker.chatThreads | quote }}
  volumeMounts:
    {{- include "diagnose-bot.volumeMounts" . | nindent 4 }}
  resources:
    {{- toYaml .Values.worker.resources | nindent 4 }}
  securityContext:
    {{- toYaml .Values.securityContext | nindent 4 }}
{{- end }}

{{- define "diagnose-bot.volumeMounts" -}}
- name: policy
  mountPath: /etc/diagnose
  readOnly: true
- name: tmp
  mountPath: /tmp
- name: state
  mountPath: /var/lib/diagnose
{{- end }}

{{/*
The pod spec around the containers (`containers` given by the caller's include).
*/}}
{{- define "diagnose-bot.podCommon" -}}
serviceAccountName: {{ include "diagnose-bot.serviceAccountName" . }}
# The Kubernetes API token is mounted only for Tier-2 evidence.
automountServiceAccountToken: {{ if .Values.rbac.tier2.enabled }}true{{ else }}false{{ end }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
terminationGracePeriodSeconds: {{ int .Values.terminationGracePeriodSeconds }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{- define "diagnose-bot.podAnnotations" -}}
# A changed policy or changed tokens roll the pods on `helm upgrade`.
checksum/policy: {{ toYaml .Values.policy | sha256sum }}
{{- if .Values.secrets.create }}
checksum/secret: {{ printf "%s\n%s" (toYaml .Values.secrets.values) .Values.externalRedis.url | sha256sum }}
{{- end }}
{{- with .Values.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "diagnose-bot.volumes" -}}
- name: policy
  configMap:
    name: {{ include "diagnose-bot.policyName" . }}
    items:
      - key: policy.yaml
        path: policy.yaml
# The root filesystem is read-only: scratch space in an emptyDir.
- name: tmp
  emptyDir: {}
{{- if eq (include "diagnose-bot.state" .) "sqlite" }}
# The queue and the conversations (SQLite), kept across restarts and rollouts.
- name: state
  persistentVolumeClaim:
    claimName: {{ include "diagnose-bot.stateName" . }}
{{- else }}
# Everything shared is in Redis: the state directory only holds scratch files.
- name: state
  emptyDir: {}
{{- end }}
{{- end }}

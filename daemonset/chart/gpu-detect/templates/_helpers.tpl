{{/* The chart's name, or nameOverride. */}}
{{- define "gpu-detect.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Full name of every object: the release name, with the chart name appended unless it is in there. */}}
{{- define "gpu-detect.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "gpu-detect.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gpu-detect.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "gpu-detect.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "gpu-detect.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "gpu-detect.serviceAccountName" -}}
{{- default (include "gpu-detect.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* The user name the API server gives the agent's service account tokens. */}}
{{- define "gpu-detect.serviceAccountUser" -}}
{{- printf "system:serviceaccount:%s:%s" .Release.Namespace (include "gpu-detect.serviceAccountName" .) -}}
{{- end -}}

{{- define "gpu-detect.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/*
The label-key prefixes the enabled profiles write, as a JSON list (also a valid CEL list literal).
An unknown profile fails the render instead of silently labelling nothing.
*/}}
{{- define "gpu-detect.labelPrefixes" -}}
{{- $prefixes := list -}}
{{- range .Values.labels.profiles -}}
{{- if eq . "gpu-detect" -}}
{{- $prefixes = append $prefixes (printf "%s/" $.Values.labels.prefix) -}}
{{- else if hasKey $.Values.labels.profilePrefixes . -}}
{{- $prefixes = concat $prefixes (get $.Values.labels.profilePrefixes .) -}}
{{- else -}}
{{- fail (printf "labels.profiles: unknown profile %q (known: gpu-detect, nvidia, amd, akash)" .) -}}
{{- end -}}
{{- end -}}
{{- toJson $prefixes -}}
{{- end -}}

{{- define "gpu-detect.nfdOutput" -}}
{{- $mode := toString .Values.nfd.output -}}
{{- if not (has $mode (list "off" "file" "nodefeature")) -}}
{{- fail (printf "nfd.output: %q is not one of off, file, nodefeature" $mode) -}}
{{- end -}}
{{- $mode -}}
{{- end -}}

{{- define "gpu-detect.akashOperator" -}}
{{- $mode := toString .Values.labels.akashOperator -}}
{{- if not (has $mode (list "auto" "present" "absent")) -}}
{{- fail (printf "labels.akashOperator: %q is not one of auto, present, absent" $mode) -}}
{{- end -}}
{{- $mode -}}
{{- end -}}

{{/* True (non-empty) when the admission policy is rendered: enabled, and the cluster serves the API or the check is off. */}}
{{- define "gpu-detect.admissionPolicyRendered" -}}
{{- if and .Values.admissionPolicy.enabled (or (not .Values.admissionPolicy.requireApi) (.Capabilities.APIVersions.Has "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy")) -}}
true
{{- end -}}
{{- end -}}

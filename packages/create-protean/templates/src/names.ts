// Every name the controller uses, in one place. `npm create protean` wrote them
// here and into deploy/: change one, change it there too.
import type { GroupVersionResource } from '@protean/core';

/** The controller's name: its field manager, lease, Deployment and ServiceAccount. */
export const CONTROLLER_NAME = '{{name}}';

/** The parent resource this controller defines (deploy/crd.yaml) and reconciles. */
export const PARENT = {
  gvr: { group: '{{group}}', version: 'v1alpha1', resource: '{{plural}}' } satisfies GroupVersionResource,
  apiVersion: '{{group}}/v1alpha1',
  kind: '{{kind}}',
} as const;

/** The owned child: one ConfigMap per parent, named `<parent>-{{singular}}`. */
export const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

/** The finalizer that gives the controller a last pass before a parent is deleted. */
export const FINALIZER = '{{group}}/cleanup';

/** ConfigMaps labelled `<this key>=<parent name>` are the parent's parts (the collection watch). */
export const PART_OF_LABEL = '{{group}}/part-of';

// #if webhooks
/** The Service kube-apiserver calls the webhooks through (deploy/webhook-service.yaml). */
export const WEBHOOK_SERVICE = '{{name}}-webhooks';

/** The Secret of the webhooks' CA and serving certificate, made and renewed by the controller (deploy/role-webhooks.yaml). */
export const WEBHOOK_SECRET = '{{name}}-webhook-tls';

// #endif
/** The `reportingController` of the Events the controller records. */
export const REPORTING_CONTROLLER = '{{group}}/{{name}}';

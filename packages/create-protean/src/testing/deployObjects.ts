// Not published: reads a generated project's deploy/ the way `kubectl apply -k` would, for the tests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

/** One object of deploy/, with the file it came from. */
export interface DeployObject {
  readonly file: string;
  readonly object: {
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace?: string; labels?: Record<string, string> };
    [field: string]: unknown;
  };
}

/** A resource in `deploy/` the tests do not know the resource name of, or a file that is not valid YAML. */
export class DeployReadError extends Error {
  override readonly name = 'DeployReadError';
}

/** The resource (plural) of each kind deploy/ holds: what a client needs to write it. */
const RESOURCES: Readonly<Record<string, string>> = {
  Namespace: 'namespaces',
  CustomResourceDefinition: 'customresourcedefinitions',
  ServiceAccount: 'serviceaccounts',
  Role: 'roles',
  RoleBinding: 'rolebindings',
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
  Deployment: 'deployments',
  PodDisruptionBudget: 'poddisruptionbudgets',
  Service: 'services',
  NetworkPolicy: 'networkpolicies',
};

/** The GVR of an object of deploy/. */
export function gvrOf(object: DeployObject['object']): { group: string; version: string; resource: string } {
  const resource = RESOURCES[object.kind];
  if (resource === undefined) throw new DeployReadError(`no resource known for kind ${object.kind} (${object.apiVersion})`);
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', object.apiVersion];
  return { group: group ?? '', version: version ?? '', resource };
}

/** The files `deploy/kustomization.yaml` lists under `resources:`, in order. */
export function kustomizationResources(projectDir: string): string[] {
  const kustomization = parse(readFileSync(join(projectDir, 'deploy/kustomization.yaml'), 'utf8')) as { resources?: string[] };
  return kustomization.resources ?? [];
}

/** Every object of the files kustomization.yaml lists, in order, each file read as multi-document YAML. */
export function readDeployObjects(projectDir: string): DeployObject[] {
  return kustomizationResources(projectDir).flatMap((file) => {
    const docs = parseAllDocuments(readFileSync(join(projectDir, 'deploy', file), 'utf8'));
    return docs.map((doc) => {
      if (doc.errors.length > 0) throw new DeployReadError(`deploy/${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
      return { file, object: doc.toJS() as DeployObject['object'] };
    });
  });
}

/** A `clusters[].cluster` entry of a KubeConfig; file paths are absolute. */
export interface KubeConfigCluster {
  readonly name: string;
  readonly server: string;
  /** `certificate-authority`: a PEM file, re-read as it changes. */
  readonly certificateAuthority?: string;
  /** `certificate-authority-data`: base64 PEM; wins over the file. */
  readonly certificateAuthorityData?: string;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName?: string;
  readonly proxyUrl?: string;
}

/** `users[].user.exec`: a client.authentication.k8s.io exec credential plugin. */
export interface KubeConfigExec {
  /** `client.authentication.k8s.io/v1` or `client.authentication.k8s.io/v1beta1`. */
  readonly apiVersion: string;
  /** A bare name (looked up on PATH) or a path (absolute, or resolved against the KubeConfig file's directory). */
  readonly command: string;
  readonly args: readonly string[];
  readonly env: readonly { readonly name: string; readonly value: string }[];
  readonly interactiveMode: 'Never' | 'IfAvailable' | 'Always';
  readonly installHint?: string;
  readonly provideClusterInfo: boolean;
}

/** A `users[].user` entry; file paths are absolute. */
export interface KubeConfigUser {
  readonly name: string;
  readonly token?: string;
  /** Re-read as the token rotates; wins over `token`. */
  readonly tokenFile?: string;
  readonly clientCertificate?: string;
  readonly clientCertificateData?: string;
  readonly clientKey?: string;
  readonly clientKeyData?: string;
  readonly username?: string;
  readonly password?: string;
  readonly exec?: KubeConfigExec;
  /** Only its name is kept: auth providers are refused when used. */
  readonly authProvider?: { readonly name: string };
}

/** A `contexts[].context` entry. */
export interface KubeConfigContext {
  readonly name: string;
  readonly cluster: string;
  readonly user: string;
  readonly namespace?: string;
}

/** The parts of a KubeConfig Protean reads, after loading and merging. */
export interface KubeConfigData {
  readonly clusters: readonly KubeConfigCluster[];
  readonly users: readonly KubeConfigUser[];
  readonly contexts: readonly KubeConfigContext[];
  readonly currentContext?: string;
}

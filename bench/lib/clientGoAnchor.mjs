// Builds (once, then cached) the Go programs the benchmarks compare Protean
// against, from Go modules: the client-go side of the anchor benchmark
// (bench/client-go-anchor) and controller-runtime's webhook server with the
// load generator of the webhooks benchmark (bench/webhook-anchor). Like the
// kube binaries (tools/kube-apiserver/build.sh) they are cached under
// ~/.cache/protean, keyed by a hash of the recipe, go.mod, go.sum and .go
// files, so each is rebuilt when its source changes and reused otherwise.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The Go programs, each with its recipe name: bump a recipe when the build
 * below changes in a way that should invalidate that program's cached binaries.
 */
const PROGRAMS = {
  'client-go-anchor': { recipe: 'protean-client-go-anchor-1', sourceDir: fileURLToPath(new URL('../client-go-anchor/', import.meta.url)) },
  'webhook-anchor': { recipe: 'protean-webhook-anchor-1', sourceDir: fileURLToPath(new URL('../webhook-anchor/', import.meta.url)) },
};

/** The cache key: the recipe and every source file with its name. */
function sourceKey({ recipe, sourceDir }) {
  const hash = createHash('sha256').update(`${recipe}\n`);
  const files = [
    'go.mod',
    'go.sum',
    ...readdirSync(sourceDir)
      .filter((f) => f.endsWith('.go'))
      .sort(),
  ];
  for (const file of files) hash.update(`\n== ${file}\n`).update(readFileSync(join(sourceDir, file)));
  return hash.digest('hex').slice(0, 16);
}

/** PROTEAN_BENCH_CACHE (every program, each under its own key), else ~/.cache/protean/<program>. */
function cacheRoot(program) {
  if (process.env.PROTEAN_BENCH_CACHE) return process.env.PROTEAN_BENCH_CACHE;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'protean', program);
}

/** The go binary: `GO`, else `go` on PATH, else /usr/local/go/bin/go. */
function goBinary() {
  if (process.env.GO) return process.env.GO;
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return 'go';
  } catch {
    return '/usr/local/go/bin/go';
  }
}

/**
 * The path of the built client-go anchor, building it first when the cache
 * has no binary for the current source (minutes with a cold Go module and
 * build cache, seconds with a warm one). Progress goes to `log`.
 */
export function clientGoAnchorBinary(log = () => undefined) {
  return goProgramBinary('client-go-anchor', log);
}

/** The path of the built webhook anchor (controller-runtime's webhook server and the load generator), built as above. */
export function webhookAnchorBinary(log = () => undefined) {
  return goProgramBinary('webhook-anchor', log);
}

/** The cached binary of the Go program `name` (a key of PROGRAMS), built first when missing. */
function goProgramBinary(name, log) {
  const program = PROGRAMS[name];
  const sourceDir = program.sourceDir;
  const root = cacheRoot(name);
  const dir = join(root, sourceKey(program));
  const binary = join(dir, name);
  if (existsSync(binary)) return binary;
  mkdirSync(root, { recursive: true });
  const scratch = mkdtempSync(join(root, '.build-'));
  try {
    log(`building ${name} into ${dir} (go build; minutes on a cold Go cache)`);
    const env = { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=readonly -buildvcs=false', CGO_ENABLED: '0' };
    delete env.GOOS;
    delete env.GOARCH;
    execFileSync(goBinary(), ['build', '-trimpath', '-ldflags=-s -w', '-o', join(scratch, name), '.'], {
      cwd: sourceDir,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    try {
      renameSync(scratch, dir);
    } catch (err) {
      // Another build of the same source got there first: use its binary.
      if (!existsSync(binary)) throw new Error(`could not move the built ${name} to ${dir}: ${err.message}`, { cause: err });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return binary;
}

// Builds (once, then cached) the client-go side of the anchor benchmark, the
// Go program in bench/client-go-anchor, from Go modules. Like the kube
// binaries (tools/kube-apiserver/build.sh) it is cached under
// ~/.cache/protean, keyed by a hash of its go.mod, go.sum and .go files, so
// it is rebuilt when its source changes and reused otherwise.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump when the build recipe below changes in a way that should invalidate cached binaries. */
const RECIPE = 'protean-client-go-anchor-1';
const BINARY = 'client-go-anchor';
const sourceDir = fileURLToPath(new URL('../client-go-anchor/', import.meta.url));

/** The cache key: the recipe and every source file with its name. */
function sourceKey() {
  const hash = createHash('sha256').update(`${RECIPE}\n`);
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

function cacheRoot() {
  if (process.env.PROTEAN_BENCH_CACHE) return process.env.PROTEAN_BENCH_CACHE;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'protean', 'client-go-anchor');
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
  const root = cacheRoot();
  const dir = join(root, sourceKey());
  const binary = join(dir, BINARY);
  if (existsSync(binary)) return binary;
  mkdirSync(root, { recursive: true });
  const scratch = mkdtempSync(join(root, '.build-'));
  try {
    log(`building ${BINARY} into ${dir} (go build; minutes on a cold Go cache)`);
    const env = { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=readonly -buildvcs=false', CGO_ENABLED: '0' };
    delete env.GOOS;
    delete env.GOARCH;
    execFileSync(goBinary(), ['build', '-trimpath', '-ldflags=-s -w', '-o', join(scratch, BINARY), '.'], {
      cwd: sourceDir,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    try {
      renameSync(scratch, dir);
    } catch (err) {
      // Another build of the same source got there first: use its binary.
      if (!existsSync(binary)) throw new Error(`could not move the built ${BINARY} to ${dir}: ${err.message}`, { cause: err });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return binary;
}

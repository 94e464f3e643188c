// Issue #25: a checkpoint of an unchanged 10,000-file workspace within 150 ms. Measures the shadow
// repository's snapshot (source/checkpoints/shadow-repo.ts, bundled here with esbuild as the build does)
// on a generated workspace: the first snapshot (stores every file once), an unchanged one, and one after
// a single file changed (what a checkpoint before a Bash command costs after an Edit).
import { execFileSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { median } from './measure.mjs'
import { makeSandbox } from './sandbox.mjs'

const FILES = 10_000
const RUNS = 15
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

async function loadShadowRepo(dir) {
  const outfile = join(dir, 'shadow-repo.mjs')
  await build({
    entryPoints: [join(root, 'source', 'checkpoints', 'shadow-repo.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    logLevel: 'warning',
  })
  return (await import(pathToFileURL(outfile).href)).ShadowRepo
}

/** 100 directories × 10 subdirectories × 10 files of ~1 KB, plus a .gitignore'd node_modules. */
async function makeWorkspace(work) {
  for (let i = 0; i < FILES; i++) {
    const dir = join(work, `pkg${i % 100}`, `mod${Math.floor(i / 100) % 10}`)
    if (i < 1000) await mkdir(dir, { recursive: true })
    await writeFile(join(dir, `file${i}.ts`), `export const value${i} = ${i}\n`.repeat(30))
  }
  await writeFile(join(work, '.gitignore'), 'node_modules/\n')
  await mkdir(join(work, 'node_modules', 'dep'), { recursive: true })
  await writeFile(join(work, 'node_modules', 'dep', 'index.js'), 'module.exports = 1\n')
}

async function timed(fn) {
  const started = performance.now()
  const value = await fn()
  return { ms: performance.now() - started, value }
}

export async function checkpoint(ctx) {
  const box = await makeSandbox()
  ctx.defer(() => box.cleanup())
  const ShadowRepo = await loadShadowRepo(box.root)
  await makeWorkspace(box.work)
  const repo = new ShadowRepo({
    gitDir: join(box.home, 'shadow'),
    workTree: box.work,
    // The session finds git by absolute path outside the workspace (source/util/host-programs.ts).
    git: execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(),
    maxFileBytes: 2 * 1024 * 1024,
    maxFiles: 100_000,
  })
  const first = await timed(() => repo.snapshot())
  ctx.report(`checkpoint: first snapshot, ${FILES.toLocaleString('en-US')} files`, first.ms, {
    note: 'info: stores every file once per workspace',
  })

  const unchanged = []
  for (let i = 0; i < RUNS; i++) unchanged.push((await timed(() => repo.snapshot())).ms)
  ctx.report(
    `checkpoint: snapshot, unchanged ${FILES.toLocaleString('en-US')}-file workspace`,
    median(unchanged),
    {
      max: 150,
      budget: '≤ 150 ms',
    },
  )

  const changed = []
  const diffs = []
  let last = first.value.tree
  for (let i = 0; i < RUNS; i++) {
    await writeFile(join(box.work, 'pkg7', 'mod0', 'file7.ts'), `export const edited = ${i}\n`)
    const snap = await timed(() => repo.snapshot())
    changed.push(snap.ms)
    diffs.push((await timed(() => repo.diff(last, snap.value.tree))).ms)
    last = snap.value.tree
  }
  ctx.report('checkpoint: snapshot after one file changed', median(changed), { max: 150, budget: '≤ 150 ms' })
  ctx.report('checkpoint: diff of two snapshots (what a Bash call changed)', median(diffs), {
    note: 'info',
  })
}

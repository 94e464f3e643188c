// Issue #30: a read-only git call is judged after asking git what config it would read where it runs
// (source/permissions/git-config-scan.ts: `git config --list` and `git rev-parse` in parallel). This is
// what that adds to each Bash call with a read-only git command, in a small repository.
import { execFileSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { median } from './measure.mjs'
import { makeSandbox } from './sandbox.mjs'

const RUNS = 40
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

export async function gitScan(ctx) {
  const box = await makeSandbox()
  ctx.defer(() => box.cleanup())
  const outfile = join(box.root, 'git-scan.mjs')
  await build({
    entryPoints: [join(root, 'source', 'permissions', 'git-config-scan.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    logLevel: 'warning',
  })
  const { scanGitConfig, scanEnv } = await import(pathToFileURL(outfile).href)
  const env = scanEnv(box.env)
  execFileSync('git', ['init', '-q'], { cwd: box.work, env })
  await writeFile(join(box.work, 'a.txt'), 'a\n')
  await scanGitConfig(box.work, { env })
  const times = []
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now()
    const facts = await scanGitConfig(box.work, { env })
    times.push(performance.now() - started)
    if (!facts.ok) throw new Error(`the scan failed: ${facts.reason}`)
  }
  ctx.report(`read-only git: config scan before the call (median of ${RUNS})`, median(times), {
    note: 'info: added to a Bash call with a read-only git command',
  })
}

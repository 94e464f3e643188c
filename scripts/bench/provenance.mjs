// Issue #30: before a hook or MCP stdio server starts outside the sandbox, agent-tui checks whether
// what it would run changed while commands or edits ran unasked (source/provenance/). This measures
// that check on a hook-heavy turn: a PostToolUse `npx prettier` hook after each of 20 edits, each edit
// an unasked change (so no check is skipped), against an installed prettier of 120 files; and a Stop
// hook `npm test`, whose footprint is the whole workspace (5,000 files).
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { median } from './measure.mjs'
import { makeSandbox } from './sandbox.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const EDITS = 20

async function loadModules(dir) {
  const entry = join(dir, 'entry.ts')
  await writeFile(
    entry,
    `export { createProvenanceGuard, shownRelativeTo } from ${JSON.stringify(join(root, 'source', 'provenance', 'guard.ts'))}\n` +
      `export { openVerdicts } from ${JSON.stringify(join(root, 'source', 'provenance', 'verdicts.ts'))}\n` +
      `export { createWindowLedger } from ${JSON.stringify(join(root, 'source', 'provenance', 'windows.ts'))}\n`,
  )
  const outfile = join(dir, 'provenance.mjs')
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    logLevel: 'warning',
  })
  return import(pathToFileURL(outfile).href)
}

async function file(path, text = 'x\n') {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, text)
}

export async function provenance(ctx) {
  const box = await makeSandbox()
  ctx.defer(() => box.cleanup())
  const m = await loadModules(box.root)
  const ws = box.work
  for (let i = 0; i < 120; i++) await file(join(ws, 'node_modules', 'prettier', `f${i % 6}`, `m${i}.js`))
  await file(join(ws, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), '#!/usr/bin/env node\n')
  await chmod(join(ws, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), 0o755)
  await mkdir(join(ws, 'node_modules', '.bin'), { recursive: true })
  await symlink('../prettier/bin/prettier.cjs', join(ws, 'node_modules', '.bin', 'prettier'))
  await file(join(ws, 'package.json'), '{"scripts":{"test":"vitest"}}')
  for (let i = 0; i < 5000 - 130; i++) await file(join(ws, 'src', `d${i % 50}`, `f${i}.ts`))
  const ledger = m.createWindowLedger({ dir: join(box.home, 'windows'), session: 'bench', roots: [ws] })
  ledger.open()
  const guard = m.createProvenanceGuard({
    windows: () => ledger.list(),
    generation: () => ledger.generation(),
    verdicts: m.openVerdicts(join(box.home, 'checked.json')),
    home: box.home,
    show: m.shownRelativeTo(ws),
  })
  const hook = (script) => ({ kind: 'hook', command: { script }, cwd: ws, env: { PATH: process.env.PATH } })
  const prettier = []
  for (let i = 0; i < EDITS; i++) {
    ledger.touch()
    const started = performance.now()
    const answer = guard.check(hook('npx prettier --write "$(jq -r .tool_input.file_path)"'))
    prettier.push(performance.now() - started)
    if (!answer.ok) throw new Error(`unexpected refusal: ${answer.reason}`)
  }
  ctx.report(
    `check before a PostToolUse \`npx prettier\` hook, after an unasked edit (median of ${EDITS})`,
    median(prettier),
    {
      note: 'a 120-file prettier package, runner config, code-config names',
    },
  )
  ctx.report(
    `  ${EDITS} such hooks in one turn`,
    prettier.reduce((a, b) => a + b, 0),
    { note: 'sum' },
  )
  const whole = []
  for (let i = 0; i < 5; i++) {
    ledger.touch()
    const started = performance.now()
    guard.check(hook('npm test'))
    whole.push(performance.now() - started)
  }
  ctx.report('check before a Stop hook `npm test` (the whole 5,000-file workspace)', median(whole), {
    note: 'median of 5',
  })
  const idle = []
  for (let i = 0; i < 20; i++) {
    const started = performance.now()
    guard.check(hook('npx prettier --write x'))
    idle.push(performance.now() - started)
  }
  ctx.report('  the same prettier check with nothing unasked since the last one', median(idle), {
    note: 'skipped: clean at this generation',
  })
}

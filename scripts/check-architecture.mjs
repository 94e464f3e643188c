// Enforces the one-direction architecture (SPEC §3, EXEMPLARS §1): only source/ui may use React/Ink,
// nothing outside source/ui (except the CLI wiring) imports source/ui, the store stays pure, and
// permissions/ never imports tools/ (tools depend on the permission types, not the other way round).
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const source = join(root, 'source')

async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(path)
    else if (/\.tsx?$/.test(entry.name)) yield path
  }
}

const importRe =
  /(?:^|\n)\s*(?:import|export)[^'"\n]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g
const problems = []
for await (const file of walk(source)) {
  const rel = relative(source, file).split('\\').join('/')
  const area = rel.split('/')[0]
  const text = await readFile(file, 'utf8')
  for (const match of text.matchAll(importRe)) {
    const spec = match[1] ?? match[2]
    const target = spec.startsWith('.')
      ? relative(source, resolve(dirname(file), spec))
          .split('\\')
          .join('/')
      : null
    const targetArea = target?.split('/')[0]
    const say = (why) => problems.push(`${rel}: imports "${spec}" — ${why}`)
    if (area !== 'ui' && (spec === 'react' || spec === 'ink' || spec.startsWith('ink-'))) {
      say('only source/ui may use React or Ink')
    }
    if (targetArea === 'ui' && area !== 'ui' && rel !== 'cli.ts' && area !== 'wiring') {
      say('nothing outside source/ui imports the UI')
    }
    if (area === 'store') {
      if (!spec.startsWith('.') || (targetArea !== 'store' && !/^provider\/messages/.test(target ?? ''))) {
        if (!(text.includes(`import type`) && /provider\/messages/.test(target ?? ''))) {
          say('the store is pure: no I/O, no runtime modules')
        }
      }
    }
    if (area === 'tools' && (targetArea === 'agent' || targetArea === 'ui')) {
      say('tools never reach into the runtime or the UI')
    }
    if (area === 'permissions' && targetArea === 'tools') {
      say('permissions/ owns the permission types and never imports tools/')
    }
  }
}
if (problems.length) {
  console.error(`architecture check failed:\n${problems.map((p) => `  ${p}`).join('\n')}`)
  process.exit(1)
}
console.log('architecture check: ok')

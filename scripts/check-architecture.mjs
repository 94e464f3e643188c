// Enforces the one-direction architecture (ARCHITECTURE.md, "The layers") on the import graph of source/:
// - the folders form five tiers; a folder imports only from its own tier or the tiers below (no upward
//   arrow), folders of one tier may import each other as long as no two folders import each other in a
//   circle (directly or round several), and no files import each other in a circle;
// - only source/ui may use React/Ink, and Ink's Text only through ui/components/text.tsx (it cleans
//   what it shows); ui/ reaches the runtime only through the types of its commands
//   (agent/runtime/commands.ts); the store stays pure; tools never reach into the runtime or the UI;
// - a file stays under the soft line budget unless LONG_FILES says why, and under the hard one always.
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

// A folder to check instead of source/ (the script's own tests hand it a small tree).
const source = process.argv[2]
  ? resolve(process.argv[2])
  : join(dirname(fileURLToPath(import.meta.url)), '..', 'source')

/**
 * The tiers, top first, and the folders (or files at the top of source/) in each. A folder may import
 * from its own tier and the tiers below, never from above. A new folder gets a place here.
 */
const TIERS = {
  // Assembles a session and picks a surface.
  app: ['cli.ts', 'app'],
  // What a user sees: the full-screen TUI, a headless run's output.
  surfaces: ['ui', 'headless'],
  // The runtime: turns, the tool-call pipeline, context economy, subagents.
  core: ['agent'],
  // What the runtime uses: tools and what they run in, permissions, hooks, MCP, settings, the provider.
  services: [
    'tools',
    'permissions',
    'sandbox',
    'tasks',
    'checkpoints',
    'mcp',
    'user-hooks',
    'extensions',
    'config',
    'provenance',
    'session',
    'provider',
    'plugins',
    // CodeSearch's index: chunking, the sqlite-vec store, embeddings, the background update.
    'codesearch',
  ],
  // Pure shapes and helpers everything may use.
  foundation: ['store', 'util', 'engine'],
}

/** Arrows against the tiers that are known and on their way out: "from-folder -> to-folder": why. */
const KNOWN_UPWARD = {}

/** The one file of the runtime the UI may see, and only its types. */
const RUNTIME_COMMANDS = 'agent/runtime/commands.ts'

/** Past this a file needs a reason in LONG_FILES; past the hard budget nothing may go. */
const LINE_BUDGET = 400
const HARD_LINE_BUDGET = 800

/** Files allowed past the soft budget, each with why it is one file. */
const LONG_FILES = {
  'app/session/create-session.ts':
    "the one place a session's service graph is wired, in the order each part needs the ones before it; the parts themselves live beside it in app/session/",
  'permissions/gate.ts':
    'the gate as one read: its parts, the one authorize sequence of a call, and the session gate that joins the policy, rules, grants and broker',
  'permissions/shell-split.ts':
    'one single-pass tokenizer: quotes, substitutions and heredocs share one cursor and one word builder',
}

async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(path)
    else if (/\.tsx?$/.test(entry.name)) yield path
  }
}

// Static imports and re-exports (also spread over several lines), side-effect imports, import().
const importRe =
  /(?:^|\n)[ \t]*(import|export)\s+(type\s+)?(?:[^;'"`]*?\sfrom\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

const tierNames = Object.keys(TIERS)
const tierOf = new Map(tierNames.flatMap((tier, i) => TIERS[tier].map((name) => [name, i])))
const areaOf = (rel) => (rel.includes('/') ? rel.split('/')[0] : rel)
const problems = []
const files = new Map()
for await (const file of walk(source)) {
  const rel = relative(source, file).split('\\').join('/')
  files.set(rel, await readFile(file, 'utf8'))
}

/** `../agent/commands.js` from `ui/x.ts` → `agent/runtime/commands.ts` (the file that exists). */
function resolveImport(fromRel, spec) {
  const target = relative(source, resolve(join(source, dirname(fromRel)), spec))
    .split('\\')
    .join('/')
  const base = target.replace(/\.(js|jsx|ts|tsx)$/, '')
  return ['.ts', '.tsx', '/index.ts'].map((ext) => base + ext).find((c) => files.has(c)) ?? target
}

const graph = new Map()
const usedUpward = new Set()
/** Arrows between folders of one tier: "from -> to" → one file import that makes it, for the message. */
const folderEdges = new Map()
function addFolderEdge(from, to, rel, target) {
  const key = `${from} -> ${to}`
  if (!folderEdges.has(key)) folderEdges.set(key, `${rel} -> ${target}`)
}
for (const [rel, text] of files) {
  const area = areaOf(rel)
  const say = (spec, why) => problems.push(`${rel}: imports "${spec}" — ${why}`)
  if (!tierOf.has(area)) {
    problems.push(`${rel}: source/${area} has no place in TIERS (scripts/check-architecture.mjs)`)
  }
  const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length
  if (lines > HARD_LINE_BUDGET) {
    problems.push(
      `${rel}: ${lines} lines — over the hard ${HARD_LINE_BUDGET}-line budget; split it by concept`,
    )
  } else if (lines > LINE_BUDGET && !LONG_FILES[rel]) {
    problems.push(
      `${rel}: ${lines} lines — over the ${LINE_BUDGET}-line budget; split it by concept (or say why it is one in LONG_FILES)`,
    )
  }
  // Every string a pane shows goes through cleanText: ui/ takes Ink's Text only through the wrapper that does.
  if (rel !== 'ui/components/text.tsx' && /import\s*\{[^}]*\bText\b[^}]*\}\s*from\s*['"]ink['"]/.test(text)) {
    problems.push(`${rel}: imports Text from "ink" — use ui/components/text.tsx, which cleans what it shows`)
  }
  const edges = new Set()
  for (const match of text.matchAll(importRe)) {
    const spec = match[3] ?? match[4]
    const typeOnly = Boolean(match[2])
    if (spec === 'react' || spec === 'ink' || spec.startsWith('ink-')) {
      if (area !== 'ui') say(spec, 'only source/ui may use React or Ink')
      continue
    }
    if (!spec.startsWith('.')) {
      if (area === 'store' && !typeOnly) say(spec, 'the store is pure: no I/O, no runtime modules')
      continue
    }
    const target = resolveImport(rel, spec)
    const targetArea = areaOf(target)
    edges.add(target)
    if (area === 'store' && targetArea !== 'store') {
      say(
        spec,
        'the store is pure: it imports only its own files (the chat message shapes are store/messages.ts)',
      )
    }
    if (area === 'ui' && targetArea === 'agent' && (target !== RUNTIME_COMMANDS || !typeOnly)) {
      say(
        spec,
        `ui/ reaches the runtime only through the types of its commands (\`import type\` from ${RUNTIME_COMMANDS})`,
      )
    }
    if (area === 'tools' && (targetArea === 'agent' || targetArea === 'ui')) {
      say(spec, 'tools never reach into the runtime or the UI')
    }
    if (targetArea === area || !tierOf.has(area) || !tierOf.has(targetArea)) continue
    if (tierOf.get(targetArea) === tierOf.get(area)) {
      addFolderEdge(area, targetArea, rel, target)
      continue
    }
    if (tierOf.get(targetArea) < tierOf.get(area)) {
      const pair = `${area} -> ${targetArea}`
      if (KNOWN_UPWARD[pair]) usedUpward.add(pair)
      else
        say(
          spec,
          `${targetArea}/ is in the ${tierNames[tierOf.get(targetArea)]} tier, above ${area}/ (${tierNames[tierOf.get(area)]}): an arrow may only point down`,
        )
    }
  }
  graph.set(rel, edges)
}

for (const pair of Object.keys(KNOWN_UPWARD)) {
  if (!usedUpward.has(pair)) problems.push(`KNOWN_UPWARD "${pair}" is no longer needed: remove it`)
}
for (const [rel, why] of Object.entries(LONG_FILES)) {
  const text = files.get(rel)
  const lines = text === undefined ? 0 : text.split('\n').length - 1
  if (lines <= LINE_BUDGET) problems.push(`LONG_FILES "${rel}" (${why}) is within the budget now: remove it`)
}
for (const circle of circles(graph)) {
  problems.push(`import circle: ${[...circle, circle[0]].join(' -> ')}`)
}
const folderGraph = new Map()
for (const key of folderEdges.keys()) {
  const [from, to] = key.split(' -> ')
  if (!folderGraph.has(from)) folderGraph.set(from, new Set())
  if (!folderGraph.has(to)) folderGraph.set(to, new Set())
  folderGraph.get(from).add(to)
}
for (const circle of circles(folderGraph)) {
  const arrows = [...circle, circle[0]].slice(1).map((to, i) => folderEdges.get(`${circle[i]} -> ${to}`))
  problems.push(
    `folder circle in the ${tierNames[tierOf.get(circle[0])]} tier: ${[...circle, circle[0]].join(' -> ')} (${arrows.join('; ')})`,
  )
}

/** Files that import each other in a loop (strongly connected components larger than one file). */
function circles(edges) {
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const found = []
  let next = 0
  const visit = (node) => {
    index.set(node, next)
    low.set(node, next)
    next++
    stack.push(node)
    onStack.add(node)
    for (const to of edges.get(node) ?? []) {
      if (!edges.has(to)) continue
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node), low.get(to)))
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)))
    }
    if (low.get(node) !== index.get(node)) return
    const component = []
    let member
    do {
      member = stack.pop()
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1 || edges.get(node)?.has(node)) found.push(component.reverse())
  }
  for (const node of edges.keys()) if (!index.has(node)) visit(node)
  return found
}

if (problems.length) {
  console.error(`architecture check failed:\n${problems.map((p) => `  ${p}`).join('\n')}`)
  process.exit(1)
}
console.log('architecture check: ok')

// Deterministic mixed Markdown (headings, paragraphs, lists, inline code, code fences) of a given size,
// ending with a paragraph that holds only `endMarker`, so a benchmark can see the last token on screen.

const WORDS =
  'the agent reads each file before editing it and keeps a short plan while the tests run in the background so nothing blocks the terminal'.split(
    ' ',
  )

const CODE = [
  '```ts\nexport function sum(values: number[]): number {\n  let total = 0\n  for (const value of values) total += value\n  return total\n}\n```',
  '```python\ndef parse(line):\n    key, _, value = line.partition("=")\n    return key.strip(), value.strip()\n```',
  '```bash\nnpm run build --silent && node scripts/bench.mjs startup\n```',
  '```json\n{ "name": "agent-tui", "version": "0.1.0", "type": "module" }\n```',
]

function sentence(seed, words) {
  const out = []
  for (let i = 0; i < words; i++) out.push(WORDS[(seed * 7 + i * 3) % WORDS.length])
  const text = out.join(' ')
  return `${text[0].toUpperCase()}${text.slice(1)}.`
}

function block(i) {
  switch (i % 6) {
    case 0:
      return `## Step ${i / 6 + 1}: ${sentence(i, 4).slice(0, -1)}`
    case 1:
      return `${sentence(i, 14)} It uses \`src/module-${i}.ts\` and **keeps** the _existing_ behaviour. ${sentence(i + 1, 10)}`
    case 2:
      return [1, 2, 3].map((n) => `- ${sentence(i + n, 6 + n)}`).join('\n')
    case 3:
      return CODE[((i / 6) % CODE.length) | 0]
    case 4:
      return `1. ${sentence(i, 8)}\n2. ${sentence(i + 2, 7)}\n3. Run \`npm test\` again.`
    default:
      return `> ${sentence(i, 12)}`
  }
}

/** About `chars` characters of Markdown; the last paragraph is `endMarker` alone. */
export function makeMarkdown(chars, endMarker) {
  const parts = []
  let length = 0
  for (let i = 0; length < chars - endMarker.length - 2; i++) {
    const part = block(i)
    parts.push(part)
    length += part.length + 2
  }
  parts.push(endMarker)
  return parts.join('\n\n')
}

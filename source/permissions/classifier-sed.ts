import type { ShellWord } from './shell-split.js'

/**
 * `sed` as a read-only printer (part of the read-only command classifier): `-n` required, no in-place
 * editing, no script files, and every script command from a small set (p, =, l, q, d, n, s///flags
 * without w/e).
 */
export function checkSed(args: ShellWord[]): boolean {
  let quiet = false
  const scripts: string[] = []
  const operands: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a.expands) return false
    const v = a.value
    if (v === '-e' || v === '--expression') {
      const script = args[++i]
      if (!script || script.expands) return false
      scripts.push(script.value)
    } else if (v.startsWith('--expression=')) scripts.push(v.slice('--expression='.length))
    else if (v === '-n' || v === '--quiet' || v === '--silent') quiet = true
    else if (['-E', '-r', '--regexp-extended', '-s', '--separate', '-z', '--null-data', '-u'].includes(v)) {
      // harmless options
    } else if (/^-[nErsuz]*e$/.test(v)) {
      if (v.includes('n')) quiet = true
      const script = args[++i]
      if (!script || script.expands) return false
      scripts.push(script.value)
    } else if (/^-[nErsuz]+$/.test(v)) {
      if (v.includes('n')) quiet = true
    } else if (v.startsWith('-') && v !== '-') return false
    else operands.push(v)
  }
  if (scripts.length === 0) {
    const script = operands.shift()
    if (script === undefined) return false
    scripts.push(script)
  }
  return quiet && scripts.every(isPrintOnlySedScript)
}

const SED_ADDRESS = String.raw`(?:\d+(?:~\d+)?|\$|/(?:[^/\\]|\\.)*/I?)`
const SED_COMMAND = new RegExp(
  String.raw`^\s*(?:${SED_ADDRESS}(?:\s*,\s*(?:${SED_ADDRESS}|[+~]\d+))?)?\s*!?\s*` +
    String.raw`(?:[p=lPdDnNgGhHxz]|[qQ]\d*|s(.)(?:(?!\1)[^\\\n]|\\.)*\1(?:(?!\1)[^\\\n]|\\.)*\1[gpiImM0-9]*)\s*$`,
)

function isPrintOnlySedScript(script: string): boolean {
  // Split on `;` / newlines outside regexes: good enough because a `;` inside a regex only makes a
  // command fail the pattern, which means "not read-only".
  return script
    .split(/[;\n]/)
    .filter((cmd) => cmd.trim() !== '')
    .every((cmd) => SED_COMMAND.test(cmd))
}

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${…}` here is shell parameter expansion under test, not a template
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isReadOnlyCommand } from '../../../source/permissions/classifier.js'

/**
 * bash evaluates a variable's value as arithmetic in `[[ -eq ]]`, `$(( ))`, `(( ))`, `$[ ]`, array
 * subscripts, substring offsets, `-v NAME[…]` and `printf -v NAME[…]`, and an arithmetic expression runs
 * the command substitution in a subscript it names (`a[$(cmd)]`); `${x@P}` expands a value as a prompt,
 * command substitutions included. A repository file read into a variable (`x=$(cat VERSION)`) thus runs
 * code. Each row runs in real bash with such files planted: `runs` is what bash does (checked here, so
 * the table cannot drift from bash), `readOnly` is the classifier's verdict, and nothing the classifier
 * calls read-only may run the planted command. The hostile values: VERSION and $HOSTILE hold
 * `a[$(touch MARKER)]`, PROMPT holds `$(touch MARKER)`, and glob/ holds files named `-v`
 * and `a[$(touch${IFS}pwned)]` (a repository can ship such names).
 */

interface Row {
  command: string
  runs: boolean
  readOnly: boolean
}

const hazards: string[] = [
  'x=$(cat VERSION); [[ $x -eq 3 ]] && echo ok',
  'x=$(cat VERSION); [[ "$x" -eq 3 ]]',
  'x=$(cat VERSION); [[ x -eq 3 ]]',
  'x=$(cat VERSION); [[ 3 -lt $x ]]',
  'x=$(cat VERSION); if [[ $x -ne 0 ]]; then echo ok; fi',
  'x=$(cat VERSION); [[ 1 -eq 1 && $x -ge 3 ]]',
  'x=$(cat VERSION); [[ -v $x ]]',
  'x=$(cat VERSION); [[ ${x:x} == a ]]',
  'x=$(cat VERSION); test -v "$x"',
  'x=$(cat VERSION); [ -v "$x" ]',
  'x=$(cat VERSION); [ -v "arr[x]" ]',
  'x=$(cat VERSION); echo ${arr[x]}',
  'x=$(cat VERSION); echo ${arr[$x]}',
  'x=$(cat VERSION); echo "${x[x]}"',
  'x=$(cat VERSION); echo ${#x[x]}',
  'x=$(cat VERSION); echo ${x:x:1}',
  'x=$(cat VERSION); echo ${x:0:x}',
  'x=$(cat VERSION); echo ${x[@]:x}',
  'x=$(cat VERSION); echo ${*:x}',
  'x=$(cat VERSION); echo ${y:-${arr[x]}}',
  'x=$(cat VERSION); echo ${x/a/${arr[x]}}',
  'true=$(cat VERSION); echo $((true))',
  'x=$(cat VERSION); echo $((x))',
  'x=$(cat VERSION); echo $(( $x + 1 ))',
  'x=$(cat VERSION); y=$((x)); echo $y',
  'x=$(cat VERSION); echo $[x]',
  'true=$(cat VERSION); ((true))',
  'x=$(cat VERSION); cat <<< ${arr[x]}',
  'x=$(cat VERSION); cat < ${arr[x]}',
  'x=$(cat VERSION); cat <<EOF\n${arr[x]}\nEOF',
  'x=$(cat VERSION); printf -v "$x" %s 1',
  'x=$(cat VERSION); printf -v"arr[x]" %s 1',
  'x=$(cat VERSION); eval "echo \\${arr[\\$x]}"',
  'x=$(cat VERSION); bash -c \'echo ${arr[$0]}\' "$x"',
  'x=$(cat VERSION); timeout 5 bash -c \'[[ $0 -gt 1 ]]\' "$x"',
  'x=$(cat VERSION); time [[ $x -eq 1 ]]',
  'x=$(cat VERSION); [[ -z $x || $x -eq 1 ]]',
  // `&&` and `||` inside `[[ ]]` do not end it: the operand after them is evaluated too.
  'true=$(cat VERSION); [[ -n a && true -eq 1 ]]',
  'true=$(cat VERSION); [[ -z a || true -eq 1 ]]',
  'true=$(cat VERSION); time -p [[ -z a || true -eq 1 ]]',
  // `test`, `[` and `printf` see words after splitting and globbing: one may turn into `-v a[…]`.
  "x='-v a[$(touch${IFS}pwned)]'; [ $x ]",
  'op=-v; [ "$op" \'a[$(touch${IFS}pwned)]\' ]',
  'x=$(cat VERSION); y=-v; test "$y" "$x"',
  'cd glob && [ * ]',
  'cd glob && printf * b',
  "x=-v; printf $x 'a[$(touch${IFS}pwned)]' 1",
  'y=$(cat PROMPT); echo ${y@P}',
  'y=$(cat PROMPT); echo "${y@P}"',
  // From the environment, with no assignment in sight.
  'echo ${arr[HOSTILE]}',
  'echo $((HOSTILE))',
]

const harmless: string[] = [
  'ls',
  'echo $((1+2))',
  'echo $(( 1 + 2 * 3 )) $((7 % 4)) $(( (1 << 2) - 1 ))',
  'echo $[1+2]',
  'x=$(cat VERSION); [[ -f $x ]]',
  'x=$(cat VERSION); [[ $x == 3 ]]',
  'x=$(cat VERSION); [[ $x != b ]]',
  'x=$(cat VERSION); [[ $x =~ ^a ]]',
  'x=$(cat VERSION); [[ ${#x} -gt 3 ]]',
  'x=$(cat VERSION); [[ $# -eq 0 ]]',
  'x=$(cat VERSION); [[ 2 -gt 1 ]]',
  'x=$(cat VERSION); [ "$x" -eq 3 ]',
  'x=$(cat VERSION); [ -v x ]',
  'x=$(cat VERSION); [[ -v x ]]',
  'x=$(cat VERSION); echo ${#arr[@]} ${arr[0]} ${arr[@]} ${x:0:3} ${x: -1} ${x:(-2):1} ${x::2}',
  'x=$(cat VERSION); echo ${x:-x} ${x#a} ${x/a/b} ${x^^} ${x@Q} ${#x} ${x[0]} ${x[*]}',
  'x=$(cat VERSION); echo "$x" $x[x]',
  "x=$(cat VERSION); echo '${arr[x]}' '$((x))' '$[x]'",
  'x=$(cat VERSION); printf %d "$x"',
  'x=$(cat VERSION); printf -v y %s "$x"; echo $y',
  "x=$(cat VERSION); cat <<'EOF'\n${arr[x]}\nEOF",
  'y=$(cat PROMPT); echo ${y@Q}',
  'x=$(cat VERSION); [ -f "$x" ] && cat "$x"',
  'x=$(cat VERSION); [ "$x" = b ] || [ -n "$x" ]',
  'x=$(cat VERSION); [[ -n $x && $x != b ]]',
  'x=$(cat VERSION); [[ $x =~ ^(a|b)$ ]] || [[ ( $x == a ) ]]',
  'x=$(cat VERSION); [[ a < $x ]]',
  '[ $# -eq 0 ] && [[ $? -eq 0 ]]',
  'cd glob && ls * && echo *',
]

/** Harmless here, but the classifier cannot tell from the text: they ask. */
const cautious: string[] = [
  // An unquoted expansion in `test`/`[` may split into `-v` and a name.
  'x=$(cat VERSION); test $x -gt 1',
  'x=$(cat VERSION); [ -f $x ]',
  // Hex and base-n literals have letters, which could be names.
  'echo $((0x10)) $((16#ff))',
  "echo '$((x))' | cat <<EOF\n$[1]\nEOF",
]

const rows: Row[] = [
  ...hazards.map((command) => ({ command, runs: true, readOnly: false })),
  ...harmless.map((command) => ({ command, runs: false, readOnly: true })),
  ...cautious.map((command) => ({ command, runs: false, readOnly: false })),
]

const root = mkdtempSync(join(tmpdir(), 'agent-tui-arith-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Runs `command` in real bash in a fresh directory holding the planted files; true when the marker appeared. */
function plantedRun(command: string, index: number): boolean {
  const dir = join(root, String(index))
  const marker = join(dir, 'pwned')
  const glob = join(dir, 'glob')
  mkdirSync(glob, { recursive: true })
  const hostile = `a[$(touch ${marker})]`
  writeFileSync(join(dir, 'VERSION'), `${hostile}\n`)
  writeFileSync(join(dir, 'PROMPT'), `$(touch ${marker})\n`)
  for (const name of ['-v', 'a[$(touch${IFS}pwned)]']) writeFileSync(join(glob, name), '')
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', command], {
    cwd: dir,
    // C collation: `*` sorts `-v` first, as the glob rows need.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOSTILE: hostile, LC_ALL: 'C' },
    stdio: 'ignore',
    timeout: 10_000,
  })
  if (result.error) throw result.error
  return existsSync(marker) || existsSync(join(glob, 'pwned'))
}

describe('arithmetic and prompt expansion of a planted value, in real bash', () => {
  it.each(rows.map((row, index) => [row.command, row, index] as const))('%j', (_, row, index) => {
    const readOnly = isReadOnlyCommand(row.command)
    const ran = plantedRun(row.command, index)
    expect({ ran, readOnly }).toEqual({ ran: row.runs, readOnly: row.readOnly })
    // The oracle: nothing called read-only ran the planted command.
    expect(readOnly && ran).toBe(false)
  })
})

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${…}` here is shell parameter expansion under test, not a template
import { describe, expect, it } from 'vitest'
import { splitShell } from '../../../source/permissions/shell-split.js'

function texts(command: string): string[] {
  const split = splitShell(command)
  if (!split.ok) throw new Error(`unexpectedly unparseable: ${split.reason}`)
  return split.parts.map((p) => p.text)
}

function writes(command: string): string[][] {
  const split = splitShell(command)
  if (!split.ok) throw new Error(`unexpectedly unparseable: ${split.reason}`)
  return split.parts.map((p) => p.writes.map((w) => w.path))
}

describe('splitShell: simple commands', () => {
  it.each<[string, string[]]>([
    ['ls -la', ['ls -la']],
    ['a && b', ['a', 'b']],
    ['a || b', ['a', 'b']],
    ['a; b ;c', ['a', 'b', 'c']],
    ['a | b |& c', ['a', 'b', 'c']],
    ['a & b', ['a', 'b']],
    ['a\nb\n\nc', ['a', 'b', 'c']],
    ['a &&\n b', ['a', 'b']],
    ['(a && b) || c', ['a', 'b', 'c']],
    ['echo $(a; b)', ['echo $(a; b)', 'a', 'b']],
    ['echo `a | b`', ['echo `a | b`', 'a', 'b']],
    ['echo "x $(a) y"', ['echo x $(a) y', 'a']],
    ['diff <(a) >(b)', ['diff <(a) >(b)', 'a', 'b']],
    ['echo "a;b" \'c&&d\'', ['echo a;b c&&d']],
    ['echo a\\;b', ['echo a;b']],
    ['echo "a\\"b"', ['echo a"b']],
    ['ls # comment; rm x', ['ls']],
    ['echo a#b', ['echo a#b']],
    ['FOO=1 BAR="x y" cmd', ['FOO=1 BAR=x y cmd']],
    ['ls \\\n -la', ['ls -la']],
    ["cat <<'EOF'\nrm -rf /\nEOF\nls", ['cat', 'ls']],
    ['cat <<-EOF\n\tbody\n\tEOF', ['cat']],
    // Literal arithmetic runs nothing; any other `$((` is also read as commands, for what it may run.
    ['echo $(( 1 + 2 ))', ['echo $(( 1 + 2 ))']],
    ['echo $((x)) $[1]', ['echo $((x)) $[1]', 'x']],
    // `[[ … ]]` is one command: its `&&`, `||`, `<`, `>` and `(` are operators of its own.
    ['[[ -n $a && $b == c ]] && ls', ['[[ -n $a && $b == c ]]', 'ls']],
    ['if [[ a < b || ( c > d ) ]]; then ls; fi', ['if [[ a < b || ( c > d ) ]]', 'then ls', 'fi']],
    ['[[ -f <(rm x) ]]', ['[[ -f <(rm x) ]]', 'rm x']],
    ['echo [[ a && b ]]', ['echo [[ a', 'b ]]']],
    ['time -p [[ a && b ]]; ! [[ c || d ]]', ['time -p [[ a && b ]]', '! [[ c || d ]]']],
    ['x -p [[ a || rm y ]]', ['x -p [[ a', 'rm y ]]']],
    ['', []],
    ['   # only a comment', []],
  ])('%j → %j', (command, expected) => {
    expect(texts(command)).toEqual(expected)
  })
})

describe('splitShell: redirections', () => {
  it.each<[string, string[][]]>([
    ['cat x > y', [['y']]],
    ['cat x >> y', [['y']]],
    ['cat x >| y', [['y']]],
    ['cmd &> all.log', [['all.log']]],
    ['cmd &>> all.log', [['all.log']]],
    ['cmd 2> err.log', [['err.log']]],
    ['cmd >& out.log', [['out.log']]],
    ['cmd <> rw.txt', [['rw.txt']]],
    ['cmd 2>&1', [[]]],
    ['cmd >&2', [[]]],
    ['cmd > /dev/null 2>&1', [[]]],
    ['cmd < in.txt', [[]]],
    ['cmd <<< "text"', [[]]],
    ['a > x | b > y', [['x'], ['y']]],
    ['(a; b) > out', [['out'], ['out']]],
    ['echo hi>x', [['x']]],
  ])('%j writes %j', (command, expected) => {
    expect(writes(command)).toEqual(expected)
  })

  it('marks a redirection target with expansions as dynamic', () => {
    const split = splitShell('echo x > "$OUT"')
    expect(split.ok && split.parts[0]?.writes).toEqual([{ path: '$OUT', dynamic: true }])
  })

  it('reports the redirection operator and fd', () => {
    const split = splitShell('cmd 2>err.txt')
    expect(split.ok && split.parts[0]?.redirects.map((r) => [r.op, r.fd, r.target.value])).toEqual([
      ['>', 2, 'err.txt'],
    ])
  })
})

describe('splitShell: word flags', () => {
  it.each<[string, boolean, boolean]>([
    ['plain', false, false],
    ['"quoted *"', false, false],
    ['*.ts', false, true],
    ['{a,b}', false, true],
    ['$HOME', true, false],
    ['"$HOME"', true, false],
    ['${HOME}/x', true, false],
    ['$(date)', true, false],
    ['`date`', true, false],
  ])('%j: expands=%s glob=%s', (word, expands, glob) => {
    const split = splitShell(`echo ${word}`)
    const arg = split.ok ? split.parts[0]?.words[1] : undefined
    expect([arg?.expands, arg?.glob]).toEqual([expands, glob])
  })

  it.each<[string, string | undefined]>([
    ['${a[x]}', '${a[x]}'],
    ['"${a[$i]}"', '${a[$i]}'],
    ['${#a[x]}', '${#a[x]}'],
    ['${x:i:1}', '${x:i:1}'],
    ['${x:0:n}', '${x:0:n}'],
    ['${@:x}', '${@:x}'],
    ['${y:-${a[x]}}', '${y:-${a[x]}}'],
    ['${x@P}', '${x@P}'],
    ['${!x}', '${!x}'],
    ['$((x))', '$((x))'],
    ['$(( $x + 1 ))', '$(( $x + 1 ))'],
    ['$[x]', '$[x]'],
    ['${a[0]}${a[@]}${a[*]}${#a[@]}${x:0:3}${x: -1}${x:(-2):1}${x::2}', undefined],
    ['${x:-x}${x:=1}${x#a}${x/a/b}${x^^}${x@Q}${#x}${!pre*}', undefined],
    ["'${a[x]}' '$((x))' \\${a[x]}", undefined],
    ['$((1 + 2 * (3 - 1)))$[4]', undefined],
  ])('%j: evaluates %j', (word, evaluates) => {
    const split = splitShell(`echo ${word}`)
    if (!split.ok) throw new Error(split.reason)
    expect(split.parts[0]?.words[1]?.evaluates).toBe(evaluates)
  })

  it('marks a here-document whose body evaluates, and the commands of a non-literal (( ))', () => {
    const doc = splitShell('cat <<EOF\n${a[x]}\nEOF')
    expect(doc.ok && doc.parts[0]?.redirects[0]?.target.evaluates).toBe('${a[x]}')
    const quoted = splitShell("cat <<'EOF'\n${a[x]}\nEOF")
    expect(quoted.ok && quoted.parts[0]?.redirects[0]?.target.evaluates).toBeUndefined()
    const command = splitShell('((true)); (( 1 + 2 ))')
    expect(command.ok && command.parts.map((p) => p.evaluates)).toEqual(['(( … ))', undefined])
  })

  it('marks commands from substitutions as nested', () => {
    const split = splitShell('echo $(date)')
    expect(split.ok && split.parts.map((p) => p.nested)).toEqual([false, true])
  })
})

describe('splitShell: unparseable input', () => {
  it.each<[string, string]>([
    ['echo "abc', 'unterminated double quote'],
    ["echo 'abc", 'unterminated single quote'],
    ['echo `abc', 'unterminated backquote'],
    ['echo $(ls', 'missing ")"'],
    ['(ls', 'missing ")"'],
    ['ls)', 'unbalanced ")"'],
    ['ls &&', 'command ends with an operator'],
    ['ls |', 'command ends with an operator'],
    ['&& ls', 'unexpected "&&"'],
    ['echo \\', 'command ends with a backslash'],
    ['cat >', 'redirection ">" has no target'],
    ['case x in a) ls;; esac', 'unbalanced ")"'],
    ['cat <<EOF\nno end', 'unterminated here-document (EOF)'],
    ['cat <<EOF\n$(rm x)\nEOF', 'here-document containing command substitution'],
    ['echo ${a', 'unterminated parameter expansion'],
    ['echo ${a:-$(rm x)}', 'command substitution inside a parameter expansion is not supported'],
    ['()', 'empty subshell "()"'],
    ['[[ -n a', 'missing "]]"'],
    ['[[ -n a; ls ]]', 'this form of "[[ … ]]" is not supported'],
    ['(ls) foo', 'unexpected text after ")"'],
    ['f() { ls; }', 'unexpected "("'],
    [`${'$('.repeat(60)}ls${')'.repeat(60)}`, 'command is nested too deeply'],
  ])('%j is unparseable (%s)', (command, reason) => {
    expect(splitShell(command)).toEqual({ ok: false, reason })
  })
})

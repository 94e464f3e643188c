import { describe, expect, it } from 'vitest'
import { ruleCoversCommand } from '../../../source/permissions/command-match.js'
import { parseRule } from '../../../source/permissions/rules.js'

describe('ruleCoversCommand: the one answer for policy, broker and matchRule', () => {
  it.each<[string, string, boolean]>([
    ['Bash(rm *)', 'rm -rf x', true],
    ['Bash(rm *)', 'ls; rm x', true],
    ['Bash(rm *)', 'timeout 5 rm x', true],
    ['Bash(rm *)', '/bin/rm x', true],
    ['Bash(rm *)', "bash -c 'rm x'", true],
    ['Bash(rm *)', 'xargs rm', true],
    ['Bash(rm *)', 'env FOO=1 rm x', true],
    ['Bash(rm *)', 'FOO=1 rm x', true],
    ['Bash(rm *)', 'sudo rm x', true],
    ['Bash(rm *)', 'echo $(rm x)', true],
    ['Bash(rm *)', 'find . -exec rm {} +', true],
    ['Bash(rm *)', 'rm "x', true],
    ['Bash(rm *)', 'command -v rm', false],
    ['Bash(rm *)', 'npm run rm', false],
    ['Bash(rm *)', '$RM x', false],
    ['Bash(git push *)', 'nice git push origin', true],
    ['Bash', '$RM x', true],
  ])('restricting %s covers %j: %s', (rule, command, expected) => {
    expect(ruleCoversCommand(parseRule(rule), command, 'restrict')).toBe(expected)
  })

  it.each<[string, string, boolean]>([
    ['Bash(npm test *)', 'npm test', true],
    ['Bash(npm test *)', 'npm test; npm test -- x', true],
    ['Bash(npm test *)', 'npm test && rm -rf /', false],
    ['Bash(npm test *)', 'timeout 60 npm test', true],
    ['Bash(npm test *)', "bash -c 'npm test'", true],
    ['Bash(npm test *)', 'eval "npm test"', true],
    ['Bash(npm test *)', 'sudo npm test', false],
    ['Bash(npm test *)', 'env PATH=. npm test', false],
    ['Bash(npm test *)', 'PATH=. npm test', false],
    ['Bash(npm test *)', 'xargs npm test', false],
    ['Bash(npm test *)', '/tmp/npm test', false],
    ['Bash(npm test *)', 'npm test "x', false],
    ['Bash(rm *)', '$RM x', false],
    ['Bash', '$RM x', true],
    ['Bash(*)', 'anything | at all', true],
  ])('granting %s covers %j: %s', (rule, command, expected) => {
    expect(ruleCoversCommand(parseRule(rule), command, 'grant')).toBe(expected)
  })

  it('a grant with read-only programs counting (the broker) covers `cd x && npm test | tail`', () => {
    const rule = parseRule('Bash(npm test *)')
    expect(ruleCoversCommand(rule, 'cd x && npm test | tail -5', 'grant')).toBe(false)
    expect(ruleCoversCommand(rule, 'cd x && npm test | tail -5', 'grant', { readOnlyCounts: true })).toBe(
      true,
    )
    expect(ruleCoversCommand(rule, 'npm test > log.txt; ls', 'grant', { readOnlyCounts: true })).toBe(true)
    expect(ruleCoversCommand(rule, 'npm test; ls > out', 'grant', { readOnlyCounts: true })).toBe(false)
  })
})

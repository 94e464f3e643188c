/**
 * User-defined commands as table entries: `/review src` sends the command's prompt with its arguments put
 * in (`expandCommand`); the runtime runs its shell commands and file reads first. No React: headless
 * builds the same entries.
 */
import { expandCommand } from '../../extensions/expand.js'
import type { SubmitInput } from '../../agent/runtime/commands.js'
import type { CommandDefinition, SkillDefinition } from '../../extensions/types.js'
import type { SlashCommand } from './command-table.js'

export function userCommandEntries(definitions: readonly CommandDefinition[]): SlashCommand[] {
  return definitions.map((definition) => {
    const source = [definition.scope, ...definition.namespace].join(':')
    return {
      name: definition.name,
      ...(definition.argumentHint ? { argumentHint: definition.argumentHint } : {}),
      description: `${definition.description} (${source})`,
      source,
      // The body is read now, not kept from the start (a failure is the command's error message).
      prompt: async (args) => ({
        text: args ? `/${definition.name} ${args}` : `/${definition.name}`,
        command: expandCommand(definition, await definition.readBody(), args),
      }),
    }
  })
}

/**
 * Skills as table entries, as in Claude Code: `/pdf report.pdf` sends the skill's instructions (what the
 * Skill tool would give the model) with the arguments after them.
 */
export function skillCommandEntries(
  skills: readonly SkillDefinition[],
  prompt: (name: string, args: string) => Promise<SubmitInput>,
): SlashCommand[] {
  return skills.map((skill) => {
    const from = skill.plugin ? `plugin ${skill.plugin}` : skill.scope
    return {
      name: skill.name,
      ...(skill.argumentHint ? { argumentHint: skill.argumentHint } : {}),
      description: `${oneLine(skill.description)} (skill, ${from})`,
      source: skill.plugin ? `skill:plugin:${skill.plugin}` : `skill:${skill.scope}`,
      prompt: (args) => prompt(skill.name, args),
    }
  })
}

/** A skill's description may run to a paragraph; completion and `/help` show the start of it. */
function oneLine(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text
}

/**
 * User-defined commands as table entries: `/review src` sends the command's prompt with its arguments put
 * in (`expandCommand`); the runtime runs its shell commands and file reads first. No React: headless
 * builds the same entries.
 */
import { expandCommand } from '../../extensions/expand.js'
import type { CommandDefinition } from '../../extensions/types.js'
import type { SlashCommand } from './command-table.js'

export function userCommandEntries(definitions: readonly CommandDefinition[]): SlashCommand[] {
  return definitions.map((definition) => {
    const source = [definition.scope, ...definition.namespace].join(':')
    return {
      name: definition.name,
      ...(definition.argumentHint ? { argumentHint: definition.argumentHint } : {}),
      description: `${definition.description} (${source})`,
      source,
      prompt: (args) => ({
        text: args ? `/${definition.name} ${args}` : `/${definition.name}`,
        command: expandCommand(definition, args),
      }),
    }
  })
}

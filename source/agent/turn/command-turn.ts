import type { CommandInvocation } from '../../extensions/types.js'
import { parseRule } from '../../permissions/rules.js'
import type { Rule } from '../../permissions/rule.js'
import type { Dispatch } from '../../store/create-store.js'
import type { ToolContext } from '../../tools/types.js'
import { type CallOutcome, type ExecutorDeps, executeCall } from '../tool-call/pipeline.js'
import type { TurnDeps } from './loop.js'

/**
 * The start of a user command's turn: its `` !`command` `` pieces run (as Bash calls) and its `@file`
 * pieces are read (as Read calls), in order, under the same permission rules as the model's calls — a
 * call that would ask asks (the consent prompt; headless: denied unless a rule or the command's
 * `allowed-tools` allows it) — and the prompt that reaches the model is put together from the results.
 * A command whose shell command or file read is refused (or interrupted) sends nothing.
 */

export interface CommandTurnHost {
  /** One tool call under the permission rules; never throws (a failure is the outcome's envelope). */
  call(tool: 'Bash' | 'Read', args: Record<string, string>, signal: AbortSignal): Promise<CallOutcome>
  /** A line in the transcript saying what the command ran and read. */
  notice(text: string): void
  /** A warning the user sees (stderr in headless runs). */
  warn?(text: string): void
}

export async function expandCommandTurn(
  command: CommandInvocation,
  host: CommandTurnHost,
  signal: AbortSignal,
): Promise<{ content: string } | { error: string }> {
  let prompt = ''
  const included: string[] = []
  const ran: string[] = []
  for (const part of command.parts) {
    if (signal.aborted) return { error: 'interrupted' }
    if (part.kind === 'text') {
      prompt += part.text
      continue
    }
    if (part.kind === 'shell') {
      const outcome = await host.call(
        'Bash',
        { command: part.command, description: `run for /${command.name}` },
        signal,
      )
      if (!outcome.ok) {
        const rule = `Bash(${part.command})`
        return { error: refusal(command, `\`${part.command}\` did not run`, outcome, rule) }
      }
      prompt += commandOutput(outcome)
      ran.push(`\`${part.command}\``)
      const fenced = sandboxFailure(outcome)
      if (fenced)
        (host.warn ?? host.notice)(`/${command.name} (${command.file}): \`${part.command}\` ${fenced}`)
      continue
    }
    prompt += `@${part.path}`
    const outcome = await host.call('Read', { file_path: part.path }, signal)
    // Claude Code's rule: a reference to a file that does not exist stays text.
    if (outcome.errorCategory === 'not_found') continue
    if (outcome.status === 'denied' || outcome.status === 'cancelled') {
      return {
        error: refusal(
          command,
          `@${part.path} was not read`,
          outcome,
          `Read(${part.path.startsWith('/') ? '/' : ''}${part.path})`,
        ),
      }
    }
    included.push(
      outcome.ok
        ? `<file path="${part.path}">\n${outcome.content.replace(/\n+$/, '')}\n</file>`
        : `<file path="${part.path}">could not be read: ${outcome.errorMessage ?? 'unknown error'}</file>`,
    )
  }
  if (signal.aborted) return { error: 'interrupted' }
  const what = [
    ran.length ? `ran ${ran.join(', ')}` : '',
    included.length ? `included ${included.length === 1 ? 'a file' : `${included.length} files`}` : '',
  ].filter(Boolean)
  if (what.length) host.notice(`/${command.name} (${command.file}): ${what.join('; ')}`)
  const content = included.length ? `${prompt.trimEnd()}\n\n${included.join('\n\n')}` : prompt
  return { content: content.trim() === '' ? `/${command.name}` : content }
}

/** The command's output as it goes into the prompt: what it printed, and its exit status when not 0. */
function commandOutput(outcome: CallOutcome): string {
  const display = outcome.display
  if (display?.kind !== 'command') return outcome.content
  const output = display.output.replace(/\n+$/, '')
  const status = display.timedOut
    ? '\n(timed out and stopped)'
    : display.exitCode !== 0
      ? `\n(exit code ${display.exitCode ?? 'none: killed by a signal'})`
      : ''
  return `${output}${status}`
}

/**
 * Why a command that failed inside the Bash sandbox may have: its protected folders are read-only there
 * (a plugin's script that keeps its state in `.claude/`, as ralph-loop's does, cannot write it). Null
 * when it did not fail or ran unfenced.
 */
function sandboxFailure(outcome: CallOutcome): string | null {
  const display = outcome.display
  if (display?.kind !== 'command' || !display.sandboxed || display.exitCode === 0) return null
  return (
    `failed (exit code ${display.exitCode ?? 'none: killed by a signal'}) inside the Bash sandbox, where ` +
    '.git/, .agent-tui/, .claude/ and .mcp.json are read-only at any depth ("Read-only file system" there is the sandbox\'s doing); ' +
    'its output went to the model as it is. To let it write there, run the command with --no-sandbox'
  )
}

function refusal(command: CommandInvocation, what: string, outcome: CallOutcome, rule: string): string {
  const why = outcome.errorMessage ?? 'refused'
  // A person who said no needs no hint, nor a call no allow rule opens (a deny rule, a protected write);
  // a mode that said no does.
  const hint =
    /^the user denied/.test(why) || outcome.noAllowRule
      ? ''
      : command.skill
        ? ` — to allow it, pass --allowed-tools "${rule}" or add it to permissions.allow in your settings (a skill's allowed-tools grant nothing when it runs as /${command.name})`
        : ` — to allow it, add ${rule} to allowed-tools in ${command.file} (or pass --allowed-tools "${rule}")`
  return `/${command.name}: ${what}: ${why}${hint}. Nothing was sent to the model.`
}

export interface CommandTurnDeps {
  /** The session's executor (its tools, gate, checkpoints). */
  executor(): ExecutorDeps
  toolContext(signal: AbortSignal, onProgress: (text: string) => void, callId: string): ToolContext
  dispatch: Dispatch
  notice(text: string): void
  /** A warning the user sees (stderr in headless runs). */
  warn?(text: string): void
  newId(prefix: string): string
  /** The model of the turn running now (null: the session's). */
  setModel(model: string | null): void
}

export interface CommandTurns {
  /** What the turn runs first: the command's calls, then the prompt put together from them. */
  prepare(
    command: CommandInvocation,
  ): (signal: AbortSignal) => Promise<{ content: string } | { error: string }>
  /**
   * The command's turn begins: its model is chosen until `end`. `grants` are its `allowed-tools`, for the
   * executor of this turn's own calls (never a gate-wide rule: a subagent, background or not, and any
   * later turn go without them).
   */
  begin(command: CommandInvocation): { grants: readonly Rule[]; end(): void }
}

/** A turn's deps whose own calls carry a user command's `allowed-tools` (its subagents' never do). */
export function withGrants(deps: TurnDeps, grants: readonly Rule[] | undefined): TurnDeps {
  return grants?.length ? { ...deps, executor: { ...deps.executor, grants } } : deps
}

/** A command's `allowed-tools` as rules (checked when its file was read; one that no longer parses grants nothing). */
export function commandGrants(command: CommandInvocation): Rule[] {
  return command.allowedTools.flatMap((text) => {
    try {
      return [parseRule(text, `allowed-tools of ${command.file}`)]
    } catch {
      return []
    }
  })
}

export function createCommandTurns(deps: CommandTurnDeps): CommandTurns {
  return {
    prepare: (command) => (signal) => {
      if (command.parts.some((p) => p.kind !== 'text'))
        deps.dispatch({ type: 'phase/changed', phase: 'tools' })
      return expandCommandTurn(command, commandCalls(deps, commandGrants(command)), signal)
    },
    begin(command) {
      if (command.model) {
        deps.setModel(command.model)
        deps.notice(`/${command.name} runs on model ${command.model}`)
      }
      return { grants: commandGrants(command), end: () => deps.setModel(null) }
    },
  }
}

/**
 * The command's own calls: under the permission rules like the model's (consent asks), but with no card
 * and no history message, no `cd` that stays, and no move to the background.
 */
function commandCalls(deps: CommandTurnDeps, grants: readonly Rule[]): CommandTurnHost {
  const executor: ExecutorDeps = {
    ...deps.executor(),
    grants,
    commandContext: true,
    // No card for the call itself; consent, phases and hook cards still show.
    dispatch: (action) => {
      if (action.type !== 'tool/started' && action.type !== 'tool/progress') deps.dispatch(action)
    },
    makeContext: (signal, onProgress, callId) => ({
      ...deps.toolContext(signal, onProgress, callId),
      setCwd: () => {},
      foreground: undefined,
      tasks: undefined,
    }),
  }
  return {
    call: (tool, args, signal) =>
      executeCall(
        {
          id: deps.newId('command'),
          type: 'function',
          function: { name: tool, arguments: JSON.stringify(args) },
        },
        executor,
        signal,
        // Built here, so there is nothing to parse.
        { parsed: { value: args } },
      ),
    notice: deps.notice,
    ...(deps.warn ? { warn: deps.warn } : {}),
  }
}

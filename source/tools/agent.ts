import { z } from 'zod'
import { fitListing } from './listing.js'
import {
  defineTool,
  type SubagentOutcome,
  type Tool,
  type ToolContext,
  ToolError,
  type ToolSuccess,
} from './types.js'

/** An agent type as the Agent tool's description lists it. */
export interface AgentTypeSummary {
  name: string
  description: string
  /** `read-only tools`, `every tool but Agent`, or the listed tools. */
  tools: string
}

const MAX_TURNS = 200
/**
 * The most bytes the description takes, however many agents there are: hundreds of custom agents list
 * with one short line each, then by name, then as a count (each still runs by name). Sent with every request.
 * 7,200 with the Skill tool's: a 300-item collection then keeps the first request's definitions within 40 kB.
 */
export const AGENT_DESCRIPTION_BUDGET = 7200

const schema = z.strictObject({
  description: z.string().min(1).describe('A short (3-5 words) description of the task, shown to the user'),
  prompt: z
    .string()
    .min(1)
    .describe(
      'The task for the subagent: everything it needs, since it sees nothing of this conversation (goal, context, paths, what to return)',
    ),
  subagent_type: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Which agent runs it: one of the types listed in this tool\'s description (default "general-purpose")',
    ),
  model: z
    .string()
    .min(1)
    .optional()
    .describe("Another model of the same endpoint for this subagent (default: the agent's own, else yours)"),
  run_in_background: z
    .boolean()
    .optional()
    .describe(
      'Start it in the background and get a task id at once; read it with TaskOutput, stop it with TaskStop',
    ),
  max_turns: z
    .number()
    .int()
    .positive()
    .max(MAX_TURNS)
    .optional()
    .describe("Most steps it may take (default: the agent's own limit, which this can only lower)"),
})

export type AgentArgs = z.infer<typeof schema>

/**
 * The Agent tool. `agents` is the list of agent types at session start: it goes into the description
 * once, so the definition stays byte-identical for the whole session (agents that appear later are
 * announced to the model in a message).
 */
export function createAgentTool(agents: readonly AgentTypeSummary[]): Tool<AgentArgs> {
  return defineTool<AgentArgs>({
    name: 'Agent',
    description: describe(agents),
    schema,
    risk: 'spawn',
    isReadOnly: () => false,
    permissionTarget(args, ctx) {
      // Checked before anyone is asked: an unknown type or one plan mode does not allow is the model's to fix.
      launcher(ctx).check(request(args), ctx.mode())
      return { kind: 'none' }
    },
    preview: async (args) => ({
      kind: 'json',
      text: `${args.subagent_type ?? 'general-purpose'} agent: ${args.description}\n\n${args.prompt}`,
    }),
    summarize: (args) =>
      `Agent ${args.subagent_type ?? 'general-purpose'}: ${args.description}${args.run_in_background ? ' (background)' : ''}`,
    async execute(args, ctx): Promise<ToolSuccess> {
      const subagents = launcher(ctx)
      if (args.run_in_background) {
        const task = subagents.start(request(args))
        return {
          forModel:
            `Started background agent ${task.id} (${args.subagent_type ?? 'general-purpose'}: ${args.description}). ` +
            `Read its progress and, once it is done, its answer with TaskOutput (task_id "${task.id}"); stop it with TaskStop. ` +
            'You will also be told when it finishes.',
          display: { kind: 'task', taskId: task.id, status: task.status },
        }
      }
      const outcome = await subagents.run(request(args), { signal: ctx.signal, onProgress: ctx.onProgress })
      return {
        forModel: formatOutcome(outcome),
        display: { kind: 'text', text: `${outcome.text.trim().split('\n')[0] ?? ''}\n${traceLine(outcome)}` },
        ...(outcome.status === 'error' || outcome.status === 'stopped' ? { failed: true } : {}),
      }
    },
  })
}

function launcher(ctx: ToolContext) {
  if (ctx.subagents) return ctx.subagents
  throw new ToolError('permission', 'this agent cannot start subagents', {
    hint: 'Do the work yourself with the tools you have.',
  })
}

function request(args: AgentArgs) {
  return {
    description: args.description,
    prompt: args.prompt,
    type: args.subagent_type ?? 'general-purpose',
    ...(args.model ? { model: args.model } : {}),
    ...(args.max_turns ? { maxTurns: args.max_turns } : {}),
  }
}

function describe(agents: readonly AgentTypeSummary[]): string {
  const frame = (lines: string[], namesOnly: string[], hidden: number) =>
    [
      `Launches a subagent: a separate agent with its own conversation, system prompt and tools, that works on one task and returns its final answer to you.
- Delegate what would fill your context: searches across many files (explore), a plan (plan), a self-contained multi-step task (general-purpose).
- Several Agent calls in one message run in parallel; their results come back in call order.
- The subagent sees nothing of this conversation: the prompt must say everything it needs (goal, context, paths, what to return).
- Its answer comes to you, not to the user: tell the user what matters from it.
- run_in_background: true returns a task id at once; read its progress and answer with TaskOutput, stop it with TaskStop; you are told when it ends.
- Its permission prompts go to the user like yours, and it can do no more than your permission mode allows. In plan mode only "plan" subagents run.

Agent types (subagent_type):`,
      ...lines,
      ...(namesOnly.length ? [`More agent types, by name: ${namesOnly.join(', ')}`] : []),
      ...(hidden
        ? [
            `${hidden} more agent types are not listed: give the subagent_type you expect; one that is not there is answered with the closest names.`,
          ]
        : []),
    ].join('\n')
  const listing = fitListing(agents, AGENT_DESCRIPTION_BUDGET, {
    line: (a, description) => `- ${a.name}: ${description} (tools: ${a.tools})`,
    text: (l) => frame(l.lines, l.namesOnly, l.hidden),
  })
  return frame(listing.lines, listing.namesOnly, listing.hidden)
}

/** The answer and a short trace, as the calling model gets them. */
export function formatOutcome(outcome: SubagentOutcome): string {
  const answer = outcome.text.trim()
  const lines: string[] = []
  switch (outcome.status) {
    case 'completed':
      lines.push(answer || '(the subagent finished without an answer)')
      break
    case 'max-turns':
      lines.push(
        `[The subagent reached its turn limit (${outcome.maxTurns} turns); this is what it had:]`,
        answer || '(no answer)',
      )
      break
    case 'interrupted':
      lines.push('[The subagent was interrupted before it finished; what it had:]', answer || '(nothing yet)')
      break
    case 'stopped':
      lines.push(
        `[The subagent was stopped${outcome.error ? `: ${outcome.error}` : ''}; what it had:]`,
        answer || '(nothing yet)',
      )
      break
    case 'error':
      lines.push(
        `[The subagent failed: ${outcome.error ?? 'unknown error'}; what it had:]`,
        answer || '(nothing)',
      )
      break
  }
  if (outcome.stoppedJobs.length > 0) {
    lines.push(`[Background jobs it started were stopped with it: ${outcome.stoppedJobs.join(', ')}]`)
  }
  lines.push('', `<agent-trace>${traceLine(outcome)}</agent-trace>`)
  return lines.join('\n')
}

/** `explore · completed · 4 steps · tools: Grep ×2, Read ×3 · 12.3k tokens · 8.4 s` */
export function traceLine(outcome: SubagentOutcome): string {
  const tools = outcome.tools.length
    ? `tools: ${outcome.tools.map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(', ')}`
    : 'no tools'
  const tokens = outcome.usage.input + outcome.usage.output
  return [
    outcome.type,
    outcome.status === 'max-turns' ? `turn limit (${outcome.maxTurns})` : outcome.status,
    `${outcome.steps} step${outcome.steps === 1 ? '' : 's'}`,
    tools,
    `${tokens < 1000 ? tokens : `${(tokens / 1000).toFixed(1)}k`} tokens`,
    outcome.durationMs < 1000
      ? `${Math.round(outcome.durationMs)} ms`
      : `${(outcome.durationMs / 1000).toFixed(1)} s`,
  ].join(' · ')
}

import { z } from 'zod'
import { defineTool, ToolError, type ToolSuccess } from './types.js'

const DESCRIPTION = `Presents your implementation plan to the user for approval and leaves plan mode when they approve.
- Only use it in plan mode, after you have researched enough to write a concrete plan; it fails in other modes.
- The plan is markdown: the steps, the files to change and how you will verify the result. Keep it concise.
- The user either approves (and chooses whether edits run automatically or ask first) or asks you to keep planning, possibly with feedback. The result tells you which.
- Use it for plans that lead to code changes, not for research-only tasks, and not to ask questions (use AskUserQuestion).`

const schema = z.strictObject({
  plan: z.string().min(1).describe('The plan to approve, in markdown; concise and concrete'),
})

export type ExitPlanModeArgs = z.infer<typeof schema>

const feedbackLine = (feedback: string | undefined): string =>
  feedback?.trim() ? `\nThe user added: ${JSON.stringify(feedback.trim())}` : ''

/** The ExitPlanMode tool: asks the user to approve the plan and switches mode on approval. */
export const exitPlanModeTool = defineTool<ExitPlanModeArgs>({
  name: 'ExitPlanMode',
  description: DESCRIPTION,
  schema,
  risk: 'read',
  isReadOnly: () => true,
  permissionTarget: () => ({ kind: 'none' }),
  preview: async (args) => ({ kind: 'json', text: args.plan }),
  summarize: (args) => {
    const firstLine =
      args.plan
        .trim()
        .split('\n')[0]
        ?.replace(/^#+\s*/, '') ?? ''
    return `ExitPlanMode${firstLine ? `: ${firstLine.slice(0, 60)}` : ''}`
  },
  async execute(args, ctx): Promise<ToolSuccess> {
    const mode = ctx.mode()
    if (mode !== 'plan') {
      throw new ToolError(
        'validation',
        `ExitPlanMode is only meaningful in plan mode; you are in ${mode} mode`,
        {
          hint: 'Carry on with the task; there is no plan to approve.',
        },
      )
    }
    if (args.plan.trim() === '') {
      throw new ToolError('validation', 'The plan is empty.', {
        hint: 'Write the plan in markdown and call again.',
      })
    }
    if (!ctx.questions) {
      throw new ToolError(
        'permission',
        'no user available to approve the plan; stay in plan mode, make no changes, and give the plan as your final answer',
      )
    }
    const answer = await ctx.questions.ask({ kind: 'plan', plan: args.plan }, ctx.signal)
    if (answer.kind === 'cancelled') {
      throw new ToolError(
        'aborted',
        'The user closed the plan dialog without deciding; you are still in plan mode.',
        {
          hint: 'Make no changes. Wait for the user to say how to continue.',
        },
      )
    }
    if (answer.kind !== 'plan') {
      throw new ToolError('unknown', `expected a decision on the plan, got a "${answer.kind}" answer`)
    }
    if (answer.decision === 'keep-planning') {
      const feedback = answer.feedback?.trim()
      return {
        forModel: feedback
          ? `The user wants to keep planning. Their feedback: ${JSON.stringify(feedback)}\nYou are still in plan mode: revise the plan accordingly (research more if needed), then call ExitPlanMode again.`
          : 'The user wants to keep planning and gave no feedback. You are still in plan mode: ask what should change, or refine the plan and call ExitPlanMode again.',
        display: {
          kind: 'plan',
          verdict: feedback ? `Keep planning: ${feedback}` : 'Keep planning',
          plan: args.plan,
        },
      }
    }
    const next = answer.decision === 'approve-auto' ? 'auto' : 'safe'
    if (!ctx.switchMode) {
      return {
        forModel: `The user approved the plan, but this session cannot switch modes by itself; you are still in plan mode. Ask the user to switch modes (Shift+Tab) before you make changes.${feedbackLine(answer.feedback)}`,
        display: { kind: 'plan', verdict: 'Plan approved (mode unchanged)', plan: args.plan },
      }
    }
    const change = ctx.switchMode(next)
    if (change && !change.ok) {
      return {
        forModel: `The user approved the plan, but the mode could not be switched (${change.reason}); you are still in plan mode. Ask the user to switch modes (Shift+Tab) before you make changes.${feedbackLine(answer.feedback)}`,
        display: {
          kind: 'plan',
          verdict: `Plan approved (mode unchanged: ${change.reason})`,
          plan: args.plan,
        },
      }
    }
    const how =
      next === 'auto'
        ? 'You are now in auto mode: file edits in the workspace are accepted without asking; commands may still ask.'
        : 'You are now in safe mode: each file edit and command will ask the user for approval.'
    return {
      forModel: `The user approved the plan. ${how} Start implementing it now, step by step.${feedbackLine(answer.feedback)}`,
      display: { kind: 'plan', verdict: `Plan approved — ${next.toUpperCase()} mode`, plan: args.plan },
    }
  },
})

import { z } from 'zod'
import type { Question } from '../store/domain.js'
import { defineTool, ToolError, type ToolSuccess } from './types.js'

const DESCRIPTION = `Asks the user 1–4 multiple-choice questions and waits for the answers.
- Use it to clear up ambiguous requirements, get a decision between real alternatives, or learn a preference, instead of guessing.
- Each question has a short header (at most 12 characters, shown as a tab label), 2–4 options with a label and a description of what choosing it means, and multiSelect (true when several options can apply).
- The user can always type a custom answer instead of picking an option (an "Other" row is added automatically; do not add one yourself).
- Put the recommended option first and add "(Recommended)" to its label when you have a preference.
- Do not ask what you can find out yourself by reading the code, and do not use it to ask for approval of a plan (use ExitPlanMode in plan mode).`

const optionSchema = z.strictObject({
  label: z.string().min(1).describe('Short text of the choice (1–5 words)'),
  description: z.string().describe('What choosing this option means or implies'),
})

const questionSchema = z.strictObject({
  question: z.string().min(1).describe('The full question, ending with a question mark'),
  header: z
    .string()
    .min(1)
    .max(12)
    .describe('Very short label for the question, at most 12 characters (e.g. "Auth method")'),
  options: z
    .array(optionSchema)
    .min(2)
    .max(4)
    .describe('2–4 distinct choices; the user may also type their own answer'),
  multiSelect: z.boolean().describe('true when the user may pick more than one option'),
})

const schema = z.strictObject({
  questions: z.array(questionSchema).min(1).max(4).describe('1–4 questions to ask'),
})

export type AskUserQuestionArgs = z.infer<typeof schema>

/** Answers are keyed by question text, so texts must be unique; labels must be told apart. */
function checkDistinct(questions: readonly Question[]): void {
  const problems: string[] = []
  const seen = new Set<string>()
  for (const [i, q] of questions.entries()) {
    if (seen.has(q.question)) problems.push(`question ${i + 1} repeats the text of an earlier question`)
    seen.add(q.question)
    const labels = q.options.map((o) => o.label.trim().toLowerCase())
    const dup = labels.find((label, j) => labels.indexOf(label) !== j)
    if (dup !== undefined)
      problems.push(`question ${i + 1} ("${q.header}") has two options labelled "${dup}"`)
    if (labels.includes('other')) {
      problems.push(`question ${i + 1} ("${q.header}") has an option "Other"; the dialog already offers one`)
    }
  }
  if (problems.length > 0) {
    throw new ToolError('validation', `The questions were not asked: ${problems.join('; ')}.`, {
      hint: 'Fix the listed questions and call AskUserQuestion again.',
    })
  }
}

/** `"<question>" = "<answer>"` lines, in the order asked. */
export function formatAnswers(questions: readonly Question[], answers: Record<string, string>): string {
  return questions
    .map((q) => {
      const answer = answers[q.question]
      return `${JSON.stringify(q.question)} = ${answer === undefined ? '(no answer)' : JSON.stringify(answer)}`
    })
    .join('\n')
}

/** The AskUserQuestion tool: blocks on the question dialog; refuses when nobody can answer. */
export const askUserQuestionTool = defineTool<AskUserQuestionArgs>({
  name: 'AskUserQuestion',
  description: DESCRIPTION,
  schema,
  risk: 'read',
  isReadOnly: () => true,
  permissionTarget: () => ({ kind: 'none' }),
  preview: async (args) => ({
    kind: 'json',
    text: args.questions
      .map((q) => `[${q.header}] ${q.question}\n${q.options.map((o) => `- ${o.label}`).join('\n')}`)
      .join('\n'),
  }),
  summarize(args) {
    const more = args.questions.length - 1
    return `AskUserQuestion: ${args.questions[0]?.header ?? ''}${more > 0 ? ` (+${more} more)` : ''}`
  },
  async execute(args, ctx): Promise<ToolSuccess> {
    if (!ctx.questions) {
      throw new ToolError('permission', 'no user available; decide yourself and say so', {
        hint: 'Pick the most reasonable option, state the assumption in your answer, and continue.',
      })
    }
    const questions: Question[] = args.questions.map((q) => ({
      question: q.question,
      header: q.header,
      options: q.options.map((o) => ({ label: o.label, description: o.description })),
      multiSelect: q.multiSelect,
    }))
    checkDistinct(questions)
    const answer = await ctx.questions.ask({ kind: 'questions', questions }, ctx.signal)
    if (answer.kind === 'cancelled') {
      throw new ToolError('aborted', 'The user dismissed the questions without answering.', {
        hint: 'Do not ask the same questions again right away; continue with your best judgement and say what you assumed, or ask in plain text.',
      })
    }
    if (answer.kind !== 'questions') {
      throw new ToolError('unknown', `expected answers to the questions, got a "${answer.kind}" answer`)
    }
    const lines = formatAnswers(questions, answer.answers)
    // The card shows what a person reads: the question and the answer, without the model's quoting.
    const shown = questions.map((q) => `${q.question} → ${answer.answers[q.question] ?? '(no answer)'}`)
    return {
      forModel: `The user answered:\n${lines}\nContinue with these answers in mind.`,
      display: { kind: 'text', text: shown.join('\n') },
    }
  },
})

import type { Question, QuestionAnswer } from '../store/domain.js'

/** Asks the user (question dialog / plan approval). Absent when nobody can answer (headless, ci). */
export interface QuestionAsker {
  ask(
    request: { kind: 'questions'; questions: Question[] } | { kind: 'plan'; plan: string },
    signal: AbortSignal,
  ): Promise<QuestionAnswer>
}

import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv'
import { checkingSchema } from './schema-trim.js'

/**
 * A call's arguments checked against the server's own input schema before the call goes out, so the
 * model hears what is wrong at once — also when it called a tool whose schema it was never sent (a tool
 * on demand, through CallTool). The validator is the one the MCP client ships (Ajv), loaded with it.
 */

/** The check of one tool's arguments: null when they pass, else what is wrong. */
export type ArgumentCheck = (args: Record<string, unknown>) => string | null

type Compiled = (input: unknown) => { valid: boolean; errorMessage?: string | undefined }

/** A session's checks: each schema is compiled once, when its tool is first called. */
export function createArgumentChecks(): (schema: Record<string, unknown>) => ArgumentCheck {
  const validator = new AjvJsonSchemaValidator()
  return (schema) => {
    let compiled: Compiled | null | undefined
    return (args) => {
      if (compiled === undefined) compiled = compile(validator, schema)
      // A schema Ajv cannot read (an unknown dialect, a reference it cannot resolve): the server judges.
      if (compiled === null) return null
      const result = compiled(args)
      return result.valid ? null : readable(result.errorMessage ?? 'does not match the schema')
    }
  }
}

function compile(validator: AjvJsonSchemaValidator, schema: Record<string, unknown>): Compiled | null {
  const checking = checkingSchema(schema)
  try {
    return validator.getValidator(checking) as Compiled
  } catch {
    // An unsupported `$schema` (draft-04, a typo): the same schema read as the default dialect.
  }
  try {
    const { $schema: _dialect, ...rest } = checking
    return validator.getValidator(rest) as Compiled
  } catch {
    return null
  }
}

/** `data/page_id must be string, data must have required property 'parent'` → argument paths. */
function readable(message: string): string {
  return message.replace(/(^|, )data\//g, '$1').replace(/(^|, )data /g, '$1the arguments ')
}

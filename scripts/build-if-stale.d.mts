export function staleReason(base?: string): string | null

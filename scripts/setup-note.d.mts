export function setupNote(userAgent: string | undefined, scriptNode: string): string | null

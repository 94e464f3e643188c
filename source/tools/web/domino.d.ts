// The package's own typings declare a module named 'domino' (its old name), which does not match the
// import; the converter only needs createDocument and types the nodes it touches itself.
declare module '@mixmark-io/domino' {
  export function createDocument(html?: string, force?: boolean): unknown
}

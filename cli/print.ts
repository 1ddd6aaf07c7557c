/**
 * What the command line shows a person: results, usage and the start-up banner on stdout, mistakes
 * on stderr. Not logging: no levels and no JSON, so a script can read `indexwright status` output
 * as it is. Everything a running server or worker reports goes through lib/log.ts instead.
 */
export function print(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

export function printError(text: string): void {
  process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
}

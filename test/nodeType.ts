/**
 * The MediaGen node's type as n8n names it in workflows: `<package name>.<node description name>`. Declared
 * here alone, in a module that loads nothing, so that both the in-process harness (test/harness) and the
 * real-n8n suites (scripts/) can import it without pulling in n8n-core.
 */
export const NODE_TYPE = 'n8n-nodes-mediagen.mediaGen';

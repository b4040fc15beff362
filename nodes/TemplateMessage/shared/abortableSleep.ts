import * as n8nWorkflow from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

type AbortableSleep = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * `sleepWithAbort` where the host's n8n-workflow has it (1.120 and 2.0 do), else `sleep`, which takes a
 * signal in 2.41 and ignores it in 1.77 (n8n 1.78): there the timer runs out by itself, unawaited.
 */
export const abortableSleep: AbortableSleep = (n8nWorkflow as { sleepWithAbort?: AbortableSleep }).sleepWithAbort ?? sleep;

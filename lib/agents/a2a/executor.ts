import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultExecutionEventBus,
  type AgentExecutor,
  type ExecutionEventBus,
  type ExecutionEventBusManager,
  type RequestContext,
} from '@a2a-js/sdk/server';
import type { AskAnswers } from '../../docs/ask/answer';
import type { LivePricing } from '../../money/pricing/settings';
import { QUESTION_MAX } from '../../schemas/ask';
import { answerFor, chooseSkill, replyText, type SkillAnswer } from './skills';

/**
 * The agent's work: one question in, one completed task out, within the call (no streaming, no
 * push notifications). The task carries the answer twice: as the text of its status message
 * (URLs included), and as an artifact with the same text and the structured answer
 * (`application/json`: skill, question, found, answer, citations, and for pricing the values).
 */

export const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined });
const dataPart = (data: unknown): Part => ({ content: { $case: 'data', value: data }, mediaType: 'application/json', filename: '', metadata: undefined });

/** The question of a message: its text parts, joined and trimmed. */
export function questionOf(message: Message): string {
  return message.parts
    .flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []))
    .join('\n')
    .trim();
}

/** Why a message cannot be answered, or null when it can. */
export function refusalOf(question: string): string | null {
  if (question === '') return `Send one question as a text part (1 to ${QUESTION_MAX} characters).`;
  if (question.length > QUESTION_MAX) return `The question must be at most ${QUESTION_MAX} characters; it has ${question.length}.`;
  return null;
}

function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return { role: Role.ROLE_AGENT, messageId: randomUUID(), taskId, contextId, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

export function answerArtifact(answer: SkillAnswer): Artifact {
  return {
    artifactId: 'answer',
    name: 'answer',
    description: 'The answer with its sources: as text, and as JSON (skill, question, found, answer, citations).',
    parts: [textPart(replyText(answer)), dataPart(answer)],
    metadata: undefined,
    extensions: [],
  };
}

export class MonetizeAgentExecutor implements AgentExecutor {
  constructor(
    private readonly pricing: LivePricing,
    private readonly answered: AskAnswers,
  ) {}

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = request;
    const task: Task = {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [userMessage],
      metadata: {},
    };
    bus.publish(AgentEvent.task(task));

    const question = questionOf(userMessage);
    const refusal = refusalOf(question);
    if (refusal) {
      // REJECTED: the agent declines the task; its message says what to send instead.
      this.finish(bus, taskId, contextId, TaskState.TASK_STATE_REJECTED, refusal);
      return;
    }
    const answer = await answerFor(question, chooseSkill(question, userMessage.metadata?.skill), this.pricing, this.answered);
    bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: answerArtifact(answer), append: false, lastChunk: true, metadata: undefined }));
    this.finish(bus, taskId, contextId, TaskState.TASK_STATE_COMPLETED, replyText(answer));
  }

  private finish(bus: ExecutionEventBus, taskId: string, contextId: string, state: TaskState, text: string): void {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state, message: agentMessage(taskId, contextId, [textPart(text)]), timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
  }

  /** Tasks complete within the call that creates them: by the time a cancel arrives there is nothing to stop. */
  async cancelTask(): Promise<void> {}
}

/**
 * One event bus per running task, found by the task's id alone. The SDK's manager files buses
 * under the caller's tenant (`params.tenant`, chosen by the caller) and keeps every tenant's map
 * once created; this agent has one tenant, so nothing a caller sends makes this grow.
 */
export class TaskBusManager implements ExecutionEventBusManager {
  private readonly buses = new Map<string, ExecutionEventBus>();

  createOrGetByTaskId(taskId: string): ExecutionEventBus {
    let bus = this.buses.get(taskId);
    if (!bus) this.buses.set(taskId, (bus = new DefaultExecutionEventBus()));
    return bus;
  }

  getByTaskId(taskId: string): ExecutionEventBus | undefined {
    return this.buses.get(taskId);
  }

  cleanupByTaskId(taskId: string): void {
    this.buses.get(taskId)?.removeAllListeners();
    this.buses.delete(taskId);
  }
}

// The commands of the `posenc` program, in the order help lists them.
import type { Command } from './command.js';
import { GENERATE_COMMANDS } from './generate.js';
import { INSPECT_COMMANDS } from './inspect.js';
import { TOOL_COMMANDS } from './tools.js';
import { TRANSFORM_COMMANDS } from './transform.js';

export const COMMANDS: readonly Command[] = [...GENERATE_COMMANDS, ...TRANSFORM_COMMANDS, ...TOOL_COMMANDS, ...INSPECT_COMMANDS];

/** A checkpoint directory that cannot be loaded (a file missing, truncated or not what the model needs): the message
 *  names the file and what is wrong in one line. Every command that takes a checkpoint reports it as a usage error
 *  (exit 2): it is the user's folder to fix, not a bug. A module of its own so that the command line can tell it apart
 *  without loading the model. */
export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

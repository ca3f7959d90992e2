/** A bad sharding input: a malformed hash range, shard key, member list or option. The message names the field. */
export class ShardingConfigError extends Error {
  override readonly name = 'ShardingConfigError';
}

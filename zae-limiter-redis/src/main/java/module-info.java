/**
 * zae-limiter's Redis store: {@code dev.zaelimiter.store.redis.RedisStore} and its builder, on Lettuce.
 */
module dev.zaelimiter.redis {
    requires transitive dev.zaelimiter.core;
    requires transitive lettuce.core;

    exports dev.zaelimiter.store.redis;
}

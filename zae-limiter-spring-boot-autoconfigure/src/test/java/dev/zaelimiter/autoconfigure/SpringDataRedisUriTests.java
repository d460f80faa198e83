package dev.zaelimiter.autoconfigure;

import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/** Spring Boot's {@code spring.data.redis.*} properties, as the URI the Redis store connects to. */
class SpringDataRedisUriTests {

    @Test
    void everyPropertyReachesLettuceAsWritten() {
        String uri = SpringDataRedisUri.of(Binder.get(new MockEnvironment()
                .withProperty("spring.data.redis.host", "cache.internal")
                .withProperty("spring.data.redis.port", "6380")
                .withProperty("spring.data.redis.username", "app user")
                .withProperty("spring.data.redis.password", "p@ss:w/rd %41")
                .withProperty("spring.data.redis.database", "3")
                .withProperty("spring.data.redis.ssl.enabled", "true")));

        RedisURI parsed = RedisURI.create(uri);
        assertThat(parsed.getHost()).isEqualTo("cache.internal");
        assertThat(parsed.getPort()).isEqualTo(6380);
        assertThat(parsed.getUsername()).isEqualTo("app user");
        assertThat(new String(parsed.getPassword())).isEqualTo("p@ss:w/rd %41");
        assertThat(parsed.getDatabase()).isEqualTo(3);
        assertThat(parsed.isSsl()).isTrue();
        assertThat(SpringDataRedisUri.withoutPassword(uri)).doesNotContain("rd").contains("***");
    }

    @Test
    void springBootsDefaultsAndItsUrl() {
        assertThat(SpringDataRedisUri.of(Binder.get(new MockEnvironment()))).isEqualTo("redis://localhost:6379/0");
        assertThat(SpringDataRedisUri.of(Binder.get(new MockEnvironment()
                .withProperty("spring.data.redis.url", "rediss://:secret@cache:6390/2"))))
                .isEqualTo("rediss://:secret@cache:6390/2");
        assertThat(SpringDataRedisUri.withoutPassword("rediss://:secret@cache:6390/2"))
                .isEqualTo("rediss://:***@cache:6390/2");
    }

    @Test
    void clusterNodesAndSentinelsGiveTheStoresClusterAndSentinelUris() {
        assertThat(SpringDataRedisUri.of(Binder.get(new MockEnvironment()
                .withProperty("spring.data.redis.cluster.nodes", "n1:7000,n2:7001")
                .withProperty("spring.data.redis.password", "secret"))))
                .isEqualTo("redis-cluster://:secret@n1:7000,n2:7001");
        String sentinel = SpringDataRedisUri.of(Binder.get(new MockEnvironment()
                .withProperty("spring.data.redis.sentinel.master", "limits")
                .withProperty("spring.data.redis.sentinel.nodes", "s1:26379,s2:26379")
                .withProperty("spring.data.redis.database", "1")));
        assertThat(sentinel).isEqualTo("redis-sentinel://s1:26379,s2:26379/1#limits");
        RedisURI parsed = RedisURI.create(sentinel);
        assertThat(parsed.getSentinels()).hasSize(2);
        assertThat(parsed.getSentinelMasterId()).isEqualTo("limits");
        assertThat(parsed.getDatabase()).isEqualTo(1);
    }
}

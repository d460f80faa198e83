package dev.zaelimiter.store.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * A Redis Cluster of three masters for tests, with no replicas: each node a {@link RedisServer} with
 * {@code --cluster-enabled yes} in a temporary directory of its own, the 16384 slots split in three with
 * {@code CLUSTER ADDSLOTS} and the nodes joined with {@code CLUSTER MEET} (no {@code redis-cli} needed). The tests of a
 * JVM share one ({@link #get()}, stopped when the JVM exits); every node is stopped by its process id.
 */
public final class RedisCluster implements AutoCloseable {

    private static final int SLOTS = 16_384;
    private static RedisCluster shared;

    private final List<RedisServer> nodes;

    private RedisCluster(List<RedisServer> nodes) {
        this.nodes = nodes;
    }

    /** The cluster the tests of this JVM share, started on first call. */
    public static synchronized RedisCluster get() {
        if (shared == null) {
            shared = start(3);
        }
        return shared;
    }

    /** A new cluster of {@code masters} nodes, each serving an equal share of the slots. */
    public static RedisCluster start(int masters) {
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters; i++) {
                Path dir = Files.createTempDirectory("redis-cluster-");
                dir.toFile().deleteOnExit();
                nodes.add(RedisServer.start(RedisServer.freeClusterPort(), List.of("--cluster-enabled", "yes",
                        "--cluster-config-file", dir.resolve("nodes.conf").toString(), "--dir", dir.toString(),
                        "--cluster-node-timeout", "2000"), dir));
            }
            RedisCluster cluster = new RedisCluster(nodes);
            cluster.join();
            return cluster;
        } catch (IOException | RuntimeException e) {
            nodes.forEach(RedisServer::close);
            throw new IllegalStateException("could not start a Redis Cluster", e);
        }
    }

    private void join() {
        RedisClient client = RedisClient.create();
        try {
            for (int i = 0; i < nodes.size(); i++) {
                try (StatefulRedisConnection<String, String> c = client.connect(RedisURI.create(nodeUri(i)))) {
                    int from = SLOTS * i / nodes.size();
                    int to = SLOTS * (i + 1) / nodes.size();
                    c.sync().clusterAddSlots(IntStream.range(from, to).toArray());
                    if (i > 0) {
                        c.sync().clusterMeet("127.0.0.1", nodes.get(0).port());
                    }
                }
            }
            awaitOk(client);
        } finally {
            client.shutdown();
        }
    }

    private void awaitOk(RedisClient client) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int i = 0; i < nodes.size(); i++) {
            try (StatefulRedisConnection<String, String> c = client.connect(RedisURI.create(nodeUri(i)))) {
                while (!c.sync().clusterInfo().contains("cluster_state:ok")
                        || !c.sync().clusterInfo().contains("cluster_known_nodes:" + nodes.size())) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the cluster did not reach cluster_state:ok: "
                                + c.sync().clusterInfo());
                    }
                    pause();
                }
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the cluster forms", e);
        }
    }

    /** {@code redis://127.0.0.1:port} of node {@code i}. */
    public String nodeUri(int i) {
        return nodes.get(i).uri();
    }

    /** The seed URIs of every node, as {@code redis://} URIs. */
    public List<RedisURI> uris() {
        return IntStream.range(0, nodes.size()).mapToObj(i -> RedisURI.create(nodeUri(i))).toList();
    }

    /** A cluster client on every node (the caller shuts it down). */
    public RedisClusterClient newClient() {
        return RedisClusterClient.create(uris());
    }

    public List<RedisServer> nodes() {
        return nodes;
    }

    /** Stops every node; the shared cluster stops when the JVM exits. */
    @Override
    public void close() {
        synchronized (RedisCluster.class) {
            if (this == shared) {
                throw new IllegalStateException("the shared cluster stops when the JVM exits");
            }
        }
        nodes.forEach(RedisServer::close);
    }
}

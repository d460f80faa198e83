package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.BucketContract;
import dev.zaelimiter.contract.ConcurrencyContract;
import dev.zaelimiter.contract.ConcurrencyLimitContract;
import dev.zaelimiter.contract.HierarchyContract;
import dev.zaelimiter.contract.MultiTargetContract;
import dev.zaelimiter.contract.PauseContract;
import dev.zaelimiter.contract.ScheduleContract;
import dev.zaelimiter.contract.SoftAndBypassContract;
import dev.zaelimiter.contract.ValidationContract;
import dev.zaelimiter.contract.WaitingContract;
import dev.zaelimiter.store.LimiterStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.condition.EnabledIf;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The DynamoDB store contract suite against LocalStack in a container (Testcontainers), where a Docker engine is
 * present; skipped, with the reason in the test report, where it is not. The build's own contract run is on dynalite
 * ({@code DynamoDb*ContractTest}); this one adds a server that, like DynamoDB, returns the old item with a refused
 * condition and has transactions and the TTL API. See {@code docs/dynamodb.md}.
 *
 * <p>The image is {@value #DEFAULT_IMAGE} unless {@code -Dzae.localstack.image=...} names another (Testcontainers'
 * own settings, such as {@code DOCKER_HOST}, apply). Every contract class of {@code dev.zaelimiter.contract} has a
 * nested class here; a new contract class needs one too.
 */
@EnabledIf(value = "dockerIsAvailable", disabledReason = "no Docker engine: the LocalStack contract run needs one "
        + "(the dynalite contract run covers the same suite in this build; see docs/dynamodb.md)")
class DynamoDbLocalStackContractTest {

    static final String DEFAULT_IMAGE = "localstack/localstack:4.4.0";
    private static final String TABLE = "t-localstack-contract";
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    /**
     * Created only once the suite runs: building a {@link LocalStackContainer} already asks for the Docker
     * environment, so it must not happen when the class is loaded for the Docker check.
     */
    private static LocalStackContainer localstack;
    private static DynamoDbClient client;

    static boolean dockerIsAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    @BeforeAll
    static void startLocalStack() {
        localstack = new LocalStackContainer(
                DockerImageName.parse(System.getProperty("zae.localstack.image", DEFAULT_IMAGE))
                        .asCompatibleSubstituteFor("localstack/localstack"))
                .withServices(LocalStackContainer.Service.DYNAMODB);
        localstack.start();
        client = DynamoDbClient.builder()
                .endpointOverride(localstack.getEndpoint())
                .region(Region.of(localstack.getRegion()))
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(localstack.getAccessKey(), localstack.getSecretKey())))
                .build();
        DynamoDbStore.builder().client(client).table(TABLE).build().createTableIfMissing();
    }

    @AfterAll
    static void stopLocalStack() {
        if (client != null) {
            client.close();
        }
        if (localstack != null) {
            localstack.stop();
        }
    }

    /** A store on the suite's table, in a namespace no other store uses. */
    static LimiterStore newStore(Clock clock) {
        return DynamoDbStore.builder().client(client).table(TABLE).namespace("ns" + NAMESPACES.incrementAndGet())
                .clock(clock).build();
    }

    @Nested
    class Buckets extends BucketContract {
        @Override
        protected LimiterStore createStore() {
            return newStore(clock);
        }
    }

    @Nested
    class Concurrency extends ConcurrencyContract {
        @Override
        protected LimiterStore createStore() {
            return newStore(clock);
        }

        @Override
        protected int callsPerThread() {
            return 200;
        }
    }

    @Nested
    class ConcurrencyLimits extends ConcurrencyLimitContract {
        @Override
        protected LimiterStore createStore() {
            return newStore(clock);
        }

        @Override
        protected int callsPerThread() {
            return 40;
        }
    }

    @Nested
    class Hierarchy extends HierarchyContract {
        @Override
        protected LimiterStore createStore() {
            return newStore(clock);
        }
    }

    @Nested
    class MultiTarget extends MultiTargetContract {
        @Override
        protected LimiterStore createStore() {
            return newStore(clock);
        }
    }

    @Nested
    class Pauses extends PauseContract {
        @Override
        protected LimiterStore createStore() {
            return newStore(clock);
        }
    }

    @Nested
    class Schedules extends ScheduleContract {
        @Override
        protected LimiterStore createStore() {
            return newStore(clock);
        }
    }

    @Nested
    class SoftAndBypass extends SoftAndBypassContract {
        @Override
        protected LimiterStore createStore() {
            return newStore(clock);
        }
    }

    @Nested
    class Validation extends ValidationContract {
        @Override
        protected LimiterStore createStore() {
            return newStore(clock);
        }
    }

    @Nested
    class Waiting extends WaitingContract {
        @Override
        protected LimiterStore createStore() {
            return newStore(clock);
        }
    }
}

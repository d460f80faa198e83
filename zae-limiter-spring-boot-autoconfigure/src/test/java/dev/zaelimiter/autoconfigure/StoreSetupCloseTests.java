package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.store.dynamodb.Dynalite;
import dev.zaelimiter.store.memory.InMemoryStore;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Closing the set-up never waits for the store, and the store outlives the set-up that uses it. */
class StoreSetupCloseTests {

    @Test
    void closeDuringASlowAttemptReturnsBeforeTheAttemptEnds() throws Exception {
        StoreSetup setup = new StoreSetup(LimitDeclarations.from(new ZaeLimiterProperties()), Unavailable.BLOCK);
        CountDownLatch asking = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        setup.deferTable("create table 't'", () -> {
            asking.countDown();
            try {
                answer.await();                           // a store that takes its time (TableWait: up to 2 min)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new StoreUnavailableException("no answer", null);
        });
        RateLimiter limiter = RateLimiter.builder().store(new InMemoryStore()).build();
        CompletableFuture<Void> starting = CompletableFuture.runAsync(() -> setup.start(limiter.admin()));
        assertThat(asking.await(30, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Void> closing = CompletableFuture.runAsync(setup::close);
        try {
            closing.get(30, TimeUnit.SECONDS);
            assertThat(starting).as("the attempt is still asking the store when close returns").isNotDone();
        } finally {
            answer.countDown();
        }
        starting.get(30, TimeUnit.SECONDS);
        assertThat(setup.state()).doesNotContainKey("nextAttempt");
    }

    @Test
    void theStoreIsClosedAfterTheSetUpThatUsesIt() {
        DynamoDbClient client = Dynalite.get().client();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                .withBean(DynamoDbClient.class, () -> client)
                .withPropertyValues("zae.limiter.store=dynamodb", "zae.limiter.dynamodb.table=setup-close",
                        "zae.limiter.dynamodb.create-table=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    String[] setups = context.getBeanNamesForType(StoreSetup.class);
                    assertThat(setups).hasSize(1);
                    assertThat(context.getBeanFactory().getDependentBeans("limiterStore"))
                            .as("destroying the store destroys the set-up first").contains(setups[0]);
                });
    }
}

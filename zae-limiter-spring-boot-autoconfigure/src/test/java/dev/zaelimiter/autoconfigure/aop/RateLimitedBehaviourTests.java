package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.Lease;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimitContext;
import dev.zaelimiter.spring.RateLimited;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.ParseException;
import org.springframework.expression.ParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import java.io.IOException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What {@code @RateLimited} does to calls, on the in-memory store with a clock the tests move. */
class RateLimitedBehaviourTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterAopAutoConfiguration.class))
            .withPropertyValues(
                    "zae.limiter.store=memory",
                    "zae.limiter.resources.chat.limits.rpm.capacity=2",
                    "zae.limiter.resources.chat.limits.tpm.capacity=1000",
                    "zae.limiter.resources.models.limits.rpm.capacity=1",
                    "zae.limiter.resources.reports.limits.rpm.capacity=10")
            .withUserConfiguration(Services.class);

    private void run(Consumer<AssertableApplicationContext> test) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            test.accept(context);
        });
    }

    private static Map<String, Long> available(AssertableApplicationContext context, String entity, String resource) {
        return context.getBean(RateLimiter.class).available(entity, resource);
    }

    @Test
    void admitsUntilTheLimitThenRejectsWithoutRunningTheMethod() {
        run(context -> {
            ChatService chat = context.getBean(ChatService.class);
            assertThat(chat.reply("alice", "hi")).isEqualTo("reply to alice");
            assertThat(chat.reply("alice", "hi")).isEqualTo("reply to alice");
            assertThatThrownBy(() -> chat.reply("alice", "hi"))
                    .isInstanceOfSatisfying(RateLimitExceededException.class, e -> {
                        assertThat(e.violations()).singleElement().satisfies(v -> {
                            assertThat(v.entityId()).isEqualTo("alice");
                            assertThat(v.resource()).isEqualTo("chat");
                            assertThat(v.limitName()).isEqualTo("rpm");
                        });
                        assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(30));
                    });
            assertThat(chat.calls()).isEqualTo(2);
            assertThat(chat.reply("bob", "hi")).isEqualTo("reply to bob");   // another entity, another bucket

            context.getBean(MutableClock.class).advance(Duration.ofSeconds(30));
            assertThat(chat.reply("alice", "hi")).isEqualTo("reply to alice");
            assertThat(chat.calls()).isEqualTo(4);
        });
    }

    @Test
    void entityAndAmountComeFromArgumentsByNameAndPosition() {
        run(context -> {
            ChatService chat = context.getBean(ChatService.class);
            chat.complete("alice", 300);
            assertThat(available(context, "alice", "chat")).isEqualTo(Map.of("rpm", 1L, "tpm", 700L));
            chat.completeByPosition("alice", 200);
            assertThat(available(context, "alice", "chat")).isEqualTo(Map.of("rpm", 0L, "tpm", 500L));
            assertThatThrownBy(() -> chat.completeByPosition("bob", 1001))
                    .isInstanceOf(dev.zaelimiter.UnsatisfiableRequestException.class);
            chat.byRoot("carol", "x");
            assertThat(available(context, "carol", "chat")).containsEntry("tpm", 999L);
        });
    }

    @Test
    void expressionsReachBeansAndArgumentProperties() {
        run(context -> {
            ChatService chat = context.getBean(ChatService.class);
            chat.forRequest(new Request(new User("u-7", "acme"), "four"));
            // entity: @tenants.idOf(#request.user); amount: @pricing.cost(#request.prompt) = 4 * 10
            assertThat(available(context, "tenant:acme", "chat")).isEqualTo(Map.of("rpm", 2L, "tpm", 960L));
        });
    }

    @Test
    void aNullOrBlankEntityIsAClearErrorAndSpendsNothing() {
        run(context -> {
            ChatService chat = context.getBean(ChatService.class);
            assertThatThrownBy(() -> chat.reply(null, "hi"))
                    .isInstanceOf(ValidationException.class)
                    .hasMessageContaining("ChatService.reply(String, String)")
                    .hasMessageContaining("'#userId'")
                    .hasMessageContaining("non-blank entity id");
            assertThatThrownBy(() -> chat.reply("  ", "hi"))
                    .isInstanceOf(ValidationException.class)
                    .hasMessageContaining("ChatService.reply(String, String)");
            assertThatThrownBy(() -> chat.forRequest(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("ChatService.forRequest(Request)")
                    .hasMessageContaining("cannot evaluate '@tenants.idOf(#request.user)'");
            assertThatThrownBy(() -> chat.complete("alice", null))
                    .isInstanceOf(ValidationException.class)
                    .hasMessageContaining("'#maxTokens' must give a whole number");
            assertThat(chat.calls()).isEqualTo(0);
            assertThat(available(context, "alice", "chat")).isEqualTo(Map.of("rpm", 2L, "tpm", 1000L));
        });
    }

    @Test
    void classLevelAnnotationCoversPublicMethodsAndMethodAnnotationsReplaceIt() {
        run(context -> {
            ReportService reports = context.getBean(ReportService.class);
            reports.daily("acct-1");
            reports.weekly("acct-1");
            assertThat(available(context, "acct-1", "reports")).isEqualTo(Map.of("rpm", 8L));
            reports.yearly("acct-1");                         // its own annotation: 5, not 5 + 1
            assertThat(available(context, "acct-1", "reports")).isEqualTo(Map.of("rpm", 3L));
            assertThat(reports.toString()).isEqualTo("reports");
            assertThat(available(context, "acct-1", "reports")).isEqualTo(Map.of("rpm", 3L));
        });
    }

    @Test
    void repeatedAnnotationsAcquireInOrderAndRollBackEarlierLeasesOnRejection() {
        run(context -> {
            ChatService chat = context.getBean(ChatService.class);
            chat.twoResources("alice");
            assertThat(available(context, "alice", "chat")).containsEntry("rpm", 1L);
            assertThat(available(context, "global", "models")).containsEntry("rpm", 0L);

            // chat is acquired first, then models is rejected: chat is given back, the method does not run
            assertThatThrownBy(() -> chat.twoResources("bob")).isInstanceOf(RateLimitExceededException.class)
                    .hasMessageContaining("global/models/rpm");
            assertThat(available(context, "bob", "chat")).containsEntry("rpm", 2L);
            assertThat(chat.calls()).isEqualTo(1);
            assertThat(chat.seen()).containsExactly("models", "chat");  // innermost first, then by resource
        });
    }

    @Test
    void leasesEndInReverseOrder() {
        runner.withUserConfiguration(RecordingStoreConfiguration.class).run(context -> {
            ChatService chat = context.getBean(ChatService.class);
            List<String> writes = context.getBean(RecordingStoreConfiguration.class).writes;
            chat.twoResources("erin");
            assertThat(chat.leases()).hasSize(2).allSatisfy(lease ->          // both closed once the method returned
                    assertThatThrownBy(() -> lease.adjust("rpm", 1))
                            .isInstanceOf(dev.zaelimiter.LeaseClosedException.class));
            assertThat(writes).isEmpty();                                     // closing writes nothing

            context.getBean(MutableClock.class).advance(Duration.ofMinutes(1));
            assertThatThrownBy(() -> chat.twoResourcesFailing("erin")).isInstanceOf(IllegalStateException.class);
            assertThat(writes).containsExactly("global/models", "erin/chat");  // rolled back last to first
            assertThat(available(context, "erin", "chat")).containsEntry("rpm", 2L);
            assertThat(available(context, "global", "models")).containsEntry("rpm", 1L);
        });
    }

    @Test
    void rollbackOnDecidesWhichExceptionsGiveTheTokensBack() {
        run(context -> {
            ChatService chat = context.getBean(ChatService.class);
            // default: every exception rolls back
            assertThatThrownBy(() -> chat.failing("alice", new IllegalStateException("boom")))
                    .isInstanceOf(IllegalStateException.class).hasMessage("boom");
            assertThat(available(context, "alice", "chat")).containsEntry("rpm", 2L);

            // rollbackOn = IllegalStateException: other exceptions keep the tokens spent
            assertThatThrownBy(() -> chat.failingSelectively("bob", new IllegalArgumentException("bad input")))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(available(context, "bob", "chat")).containsEntry("rpm", 1L);
            assertThatThrownBy(() -> chat.failingSelectively("bob", new IllegalStateException("model down")))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(available(context, "bob", "chat")).containsEntry("rpm", 1L);

            // rollbackOn = {}: never
            assertThatThrownBy(() -> chat.neverRollingBack("carol", new IllegalStateException("boom")))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(available(context, "carol", "chat")).containsEntry("rpm", 1L);

            // a checked exception goes through unchanged
            assertThatThrownBy(() -> chat.failingChecked("dave")).isInstanceOf(IOException.class);
            assertThat(available(context, "dave", "chat")).containsEntry("rpm", 2L);
        });
    }

    @Test
    void theMethodAdjustsItsLeaseThroughTheContext() {
        run(context -> {
            ChatService chat = context.getBean(ChatService.class);
            assertThat(RateLimitContext.currentLease()).isEmpty();
            chat.adjusting("alice", 350);          // reserved 100 tpm, used 350
            assertThat(available(context, "alice", "chat")).containsEntry("tpm", 650L);
            assertThat(RateLimitContext.currentLease()).isEmpty();
            // an adjustment is rolled back with the rest
            assertThatThrownBy(() -> chat.adjustingThenFailing("bob", 350)).isInstanceOf(IllegalStateException.class);
            assertThat(available(context, "bob", "chat")).containsEntry("tpm", 1000L);
        });
    }

    @Test
    void theMethodMayEndItsLeaseItself() {
        run(context -> {
            ChatService chat = context.getBean(ChatService.class);
            assertThatThrownBy(() -> chat.rollingBackThenFailing("alice")).isInstanceOf(IllegalStateException.class)
                    .satisfies(e -> assertThat(e.getSuppressed()).isEmpty());
            assertThat(available(context, "alice", "chat")).containsEntry("rpm", 2L);
        });
    }

    @Test
    void nestedCallsSeeTheirOwnLease() {
        run(context -> {
            ReportService reports = context.getBean(ReportService.class);
            List<Optional<Lease>> seen = reports.nested("acct-2");
            assertThat(seen.get(0)).isPresent();
            assertThat(seen.get(1)).isPresent().isNotEqualTo(seen.get(0));
            assertThat(seen.get(2)).isEqualTo(seen.get(0));
            assertThat(RateLimitContext.currentLease()).isEmpty();
        });
    }

    @Test
    void aCompletableFutureEndsTheLeaseWhenItCompletes() {
        run(context -> {
            AsyncService async = context.getBean(AsyncService.class);
            CompletableFuture<String> control = new CompletableFuture<>();
            CompletableFuture<String> result = async.reply("alice", control);
            assertThat(result).isNotDone();
            assertThat(available(context, "alice", "chat")).containsEntry("rpm", 1L);
            Lease lease = async.lastLease();
            lease.adjust("tpm", 10);                         // still open while the future runs
            control.complete("done");
            assertThat(result).isCompletedWithValue("done");
            assertThatThrownBy(() -> lease.adjust("tpm", 1)).isInstanceOf(dev.zaelimiter.LeaseClosedException.class);
            assertThat(available(context, "alice", "chat")).isEqualTo(Map.of("rpm", 1L, "tpm", 990L));
        });
    }

    @Test
    void aFailedFutureRollsTheLeaseBackPerRollbackOn() {
        run(context -> {
            AsyncService async = context.getBean(AsyncService.class);
            CompletableFuture<String> control = new CompletableFuture<>();
            CompletableFuture<String> result = async.reply("alice", control);
            control.completeExceptionally(new IllegalStateException("model down"));
            assertThat(result).isCompletedExceptionally();
            assertThatThrownBy(result::join).isInstanceOf(CompletionException.class)
                    .hasRootCauseInstanceOf(IllegalStateException.class);
            assertThat(available(context, "alice", "chat")).containsEntry("rpm", 2L);

            // a failure wrapped in CompletionException is unwrapped before matching rollbackOn
            CompletableFuture<String> wrapped = async.keepingOnIllegalArgument("bob",
                    CompletableFuture.supplyAsync(() -> {
                        throw new IllegalArgumentException("bad");
                    }));
            assertThatThrownBy(wrapped::join).hasRootCauseInstanceOf(IllegalArgumentException.class);
            assertThat(available(context, "bob", "chat")).containsEntry("rpm", 1L);
        });
    }

    @Test
    void completionStagesAndFutureSubtypesAreFollowedToo() {
        run(context -> {
            AsyncService async = context.getBean(AsyncService.class);
            CompletableFuture<String> control = new CompletableFuture<>();
            CompletionStage<String> stage = async.stage("alice", control);
            control.completeExceptionally(new IllegalStateException("x"));
            assertThat(stage.toCompletableFuture()).isCompletedExceptionally();
            assertThat(available(context, "alice", "chat")).containsEntry("rpm", 2L);

            MyFuture<String> own = new MyFuture<>();
            assertThat(async.own("bob", own)).isSameAs(own);   // a subtype is handed back as it is
            own.completeExceptionally(new IllegalStateException("x"));
            assertThat(available(context, "bob", "chat")).containsEntry("rpm", 2L);

            // a method that throws instead of returning a future ends the lease at once
            assertThatThrownBy(() -> async.reply("carol", null)).isInstanceOf(NullPointerException.class);
            assertThat(available(context, "carol", "chat")).containsEntry("rpm", 2L);
        });
    }

    @Test
    void aRejectionIsThrownBeforeAnAsyncMethodRuns() {
        run(context -> {
            AsyncService async = context.getBean(AsyncService.class);
            async.reply("alice", CompletableFuture.completedFuture("a"));
            async.reply("alice", CompletableFuture.completedFuture("b"));
            assertThatThrownBy(() -> async.reply("alice", CompletableFuture.completedFuture("c")))
                    .isInstanceOf(RateLimitExceededException.class);
            assertThat(async.calls()).isEqualTo(2);
        });
    }

    @Test
    void expressionsAreParsedOncePerMethod() {
        runner.withUserConfiguration(CountingParserConfiguration.class).run(context -> {
            RateLimitedOperationSource source = context.getBean(RateLimitedOperationSource.class);
            CountingParser parser = context.getBean(CountingParser.class);
            ChatService chat = context.getBean(ChatService.class);
            // parsed while the proxies were created, before any call
            int parsedAtStartup = parser.parsed.get();
            assertThat(parsedAtStartup).isPositive();
            Method complete = ChatService.class.getMethod("complete", String.class, Integer.class);
            RateLimitedMethod compiled = source.get(complete, ChatService.class);
            assertThat(compiled).isNotNull();
            int cached = source.size();

            for (int i = 0; i < 20; i++) {
                context.getBean(MutableClock.class).advance(Duration.ofMinutes(1));
                chat.complete("alice", 1);
                chat.forRequest(new Request(new User("u", "acme"), "p"));
            }
            assertThat(parser.parsed).hasValue(parsedAtStartup);
            assertThat(source.size()).isEqualTo(cached);
            assertThat(source.get(complete, ChatService.class)).isSameAs(compiled);
            // a plain argument reference reads the argument array; a literal amount is no expression at all
            assertThat(compiled.operations[0].entity).isInstanceOf(RateLimitedMethod.Argument.class);
            assertThat(compiled.operations[0].amounts[0]).isInstanceOf(RateLimitedMethod.Constant.class);
            assertThat(compiled.operations[0].amounts[1]).isInstanceOf(RateLimitedMethod.Argument.class);
        });
    }

    // ---- the beans under test

    record User(String id, String org) {
    }

    record Request(User user, String prompt) {
    }

    static class Tenants {

        public String idOf(User user) {
            return "tenant:" + user.org();
        }
    }

    static class Pricing {

        public long cost(String prompt) {
            return prompt.length() * 10L;
        }
    }

    static class ChatService {

        private final AtomicInteger calls = new AtomicInteger();
        private final List<String> seen = new ArrayList<>();
        private final List<Lease> leases = new ArrayList<>();

        // read through the proxy: CGLIB proxies have fields of their own, never set
        public int calls() {
            return calls.get();
        }

        public List<String> seen() {
            return seen;
        }

        public List<Lease> leases() {
            return leases;
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
        public String reply(String userId, String prompt) {
            calls.incrementAndGet();
            return "reply to " + userId;
        }

        @RateLimited(resource = "chat", entity = "#userId",
                consume = {@Consume(limit = "rpm", amount = "1"), @Consume(limit = "tpm", amount = "#maxTokens")})
        public String complete(String userId, Integer maxTokens) {
            calls.incrementAndGet();
            return "ok";
        }

        @RateLimited(resource = "chat", entity = "#p0",
                consume = {@Consume(limit = "rpm"), @Consume(limit = "tpm", amount = "#a1")})
        public String completeByPosition(String userId, int maxTokens) {
            calls.incrementAndGet();
            return "ok";
        }

        @RateLimited(resource = "chat", entity = "#root.args[0]",
                consume = @Consume(limit = "tpm", amount = "#root.methodName.length() - 5"))
        public String byRoot(String userId, String other) {
            return "ok";
        }

        @RateLimited(resource = "chat", entity = "@tenants.idOf(#request.user)",
                consume = @Consume(limit = "tpm", amount = "@pricing.cost(#request.prompt)"))
        public String forRequest(Request request) {
            calls.incrementAndGet();
            return "ok";
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
        @RateLimited(resource = "models", entity = "'global'", consume = @Consume(limit = "rpm"))
        public void twoResources(String userId) {
            calls.incrementAndGet();
            seen.clear();
            seen.add(RateLimitContext.currentLease().orElseThrow() == RateLimitContext.currentLease("models")
                    .orElseThrow() ? "models" : "chat");
            seen.add(RateLimitContext.currentLease("chat").isPresent() ? "chat" : "none");
            leases.clear();
            leases.add(RateLimitContext.currentLease("chat").orElseThrow());
            leases.add(RateLimitContext.currentLease("models").orElseThrow());
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
        @RateLimited(resource = "models", entity = "'global'", consume = @Consume(limit = "rpm"))
        public void twoResourcesFailing(String userId) {
            throw new IllegalStateException("failed");
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
        public void failing(String userId, RuntimeException failure) {
            throw failure;
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"),
                rollbackOn = IllegalStateException.class)
        public void failingSelectively(String userId, RuntimeException failure) {
            throw failure;
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"), rollbackOn = {})
        public void neverRollingBack(String userId, RuntimeException failure) {
            throw failure;
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
        public void failingChecked(String userId) throws IOException {
            throw new IOException("disk");
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "tpm", amount = "100"))
        public void adjusting(String userId, int used) {
            RateLimitContext.currentLease().orElseThrow().adjust("tpm", used - 100);
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "tpm", amount = "100"))
        public void adjustingThenFailing(String userId, int used) {
            RateLimitContext.currentLease().orElseThrow().adjust("tpm", used - 100);
            throw new IllegalStateException("failed after adjusting");
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
        public void rollingBackThenFailing(String userId) {
            RateLimitContext.currentLease().orElseThrow().rollback();
            throw new IllegalStateException("failed after rolling back");
        }
    }

    @RateLimited(resource = "reports", entity = "#account", consume = @Consume(limit = "rpm"))
    static class ReportService {

        private final ReportStore store;

        ReportService(ReportStore store) {
            this.store = store;
        }

        public String daily(String account) {
            return "daily";
        }

        public String weekly(String account) {
            return "weekly";
        }

        @RateLimited(resource = "reports", entity = "#account", consume = @Consume(limit = "rpm", amount = "5"))
        public String yearly(String account) {
            return "yearly";
        }

        public List<Optional<Lease>> nested(String account) {
            List<Optional<Lease>> seen = new ArrayList<>();
            seen.add(RateLimitContext.currentLease());
            seen.add(store.load(account));
            seen.add(RateLimitContext.currentLease());
            return seen;
        }

        @Override
        public String toString() {
            return "reports";
        }
    }

    static class ReportStore {

        @RateLimited(resource = "reports", entity = "#account + ':store'", consume = @Consume(limit = "rpm"))
        public Optional<Lease> load(String account) {
            return RateLimitContext.currentLease();
        }
    }

    static class MyFuture<T> extends CompletableFuture<T> {
    }

    static class AsyncService {

        private final AtomicInteger calls = new AtomicInteger();
        private volatile Lease lastLease;

        public int calls() {
            return calls.get();
        }

        public Lease lastLease() {
            return lastLease;
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
        public CompletableFuture<String> reply(String userId, CompletableFuture<String> work) {
            calls.incrementAndGet();
            lastLease = RateLimitContext.currentLease().orElseThrow();   // the synchronous part sees it
            return work.thenApply(value -> value);
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"),
                rollbackOn = IllegalStateException.class)
        public CompletableFuture<String> keepingOnIllegalArgument(String userId, CompletableFuture<String> work) {
            return work;
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
        public CompletionStage<String> stage(String userId, CompletableFuture<String> work) {
            return work;
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
        public MyFuture<String> own(String userId, MyFuture<String> work) {
            return work;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {

        @Bean
        MutableClock clock() {
            return MutableClock.start();
        }

        @Bean
        ChatService chatService() {
            return new ChatService();
        }

        @Bean
        ReportStore reportStore() {
            return new ReportStore();
        }

        @Bean
        ReportService reportService(ReportStore reportStore) {
            return new ReportService(reportStore);
        }

        @Bean
        AsyncService asyncService() {
            return new AsyncService();
        }

        @Bean
        Tenants tenants() {
            return new Tenants();
        }

        @Bean
        Pricing pricing() {
            return new Pricing();
        }
    }

    /** The in-memory store, recording the writes that leases make after admission (adjust, rollback). */
    @Configuration(proxyBeanMethods = false)
    static class RecordingStoreConfiguration {

        final List<String> writes = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Bean
        LimiterStore limiterStore() {
            InMemoryStore store = new InMemoryStore();
            return (LimiterStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {LimiterStore.class}, (proxy, method, args) -> {
                        if (method.getName().equals("apply")) {
                            for (Object debit : (List<?>) args[0]) {
                                BucketKey key = ((BucketDebit) debit).key();
                                writes.add(key.entityId() + "/" + key.resource());
                            }
                        }
                        try {
                            return method.invoke(store, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }

    /** Counts the expressions it parses. */
    static class CountingParser extends SpelExpressionParser {

        final AtomicInteger parsed = new AtomicInteger();

        @Override
        protected SpelExpression doParseExpression(String expressionString, ParserContext context)
                throws ParseException {
            parsed.incrementAndGet();
            return super.doParseExpression(expressionString, context);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(Services.class)
    static class CountingParserConfiguration {

        @Bean
        static CountingParser countingParser() {
            return new CountingParser();
        }

        @Bean
        static RateLimitedOperationSource rateLimitedOperationSource(CountingParser countingParser) {
            return new RateLimitedOperationSource(countingParser);
        }
    }
}

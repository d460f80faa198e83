package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimitContext;
import dev.zaelimiter.spring.RateLimited;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the advice does per call, through a proxy made as Spring makes it: arguments read straight from the argument
 * array only for plain references ({@code #name}, {@code #p0}, {@code #a0}), every other expression evaluated by
 * SpEL; literal amounts built once; a method with one annotation and a plain return type taking a path of its own
 * with the same behaviour.
 */
class RateLimitedCallPathTests {

    private final RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
    private final RateLimitedOperationSource source = new RateLimitedOperationSource();

    {
        limiter.admin().setResourceDefaults("chat", List.of(Limit.perMinute("rpm", 100),
                Limit.perMinute("tpm", 10_000)));
    }

    /** A user with an id, for {@code #user.id}. */
    public record User(String id) {
    }

    public static class Chat {

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
        public String byName(String userId) {
            return RateLimitContext.currentLease().map(lease -> "lease").orElse("none");
        }

        @RateLimited(resource = "chat", entity = "#p0", consume = @Consume(limit = "rpm"))
        public void byP0(String userId) {
        }

        @RateLimited(resource = "chat", entity = "#a0", consume = @Consume(limit = "rpm"))
        public void byA0(String userId) {
        }

        @RateLimited(resource = "chat", entity = "#user.id", consume = @Consume(limit = "rpm"))
        public void byProperty(User user) {
        }

        @RateLimited(resource = "chat", entity = "#root.args[0] + '-x'", consume = @Consume(limit = "rpm"))
        public void byRoot(String userId) {
        }

        @RateLimited(resource = "chat", entity = "'fixed'", consume = @Consume(limit = "rpm"))
        public void literalEntity(String userId) {
        }

        @RateLimited(resource = "chat", entity = "#userId",
                consume = {@Consume(limit = "tpm", amount = "500"), @Consume(limit = "rpm")})
        public void twoLiterals(String userId) {
        }

        @RateLimited(resource = "chat", entity = "#userId",
                consume = {@Consume(limit = "rpm"), @Consume(limit = "tpm", amount = "#tokens")})
        public void literalAndArgument(String userId, long tokens) {
        }

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"),
                rollbackOn = IllegalArgumentException.class)
        public void failing(String userId, RuntimeException failure) {
            throw failure;
        }
    }

    public static class Base {

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
        public void call(String userId) {
        }
    }

    public static class Overriding extends Base {

        @RateLimited(resource = "models", entity = "#userId", consume = @Consume(limit = "rpm"))
        @Override
        public void call(String userId) {
        }
    }

    public static class Inherits extends Base {
    }

    private Chat proxy() {
        ProxyFactory factory = new ProxyFactory(new Chat());
        factory.setProxyTargetClass(true);
        factory.addAdvisor(new RateLimitedAdvisor(new RateLimitedInterceptor(() -> limiter, source, null)));
        return (Chat) factory.getProxy();
    }

    private RateLimitedMethod compiled(String name, Class<?>... parameterTypes) throws NoSuchMethodException {
        Method method = Chat.class.getMethod(name, parameterTypes);
        return source.get(method, Chat.class);
    }

    private long available(String entity, String limit) {
        return limiter.available(entity, "chat").get(limit);
    }

    @AfterEach
    void noLeaseLeftOnTheThread() {
        assertThat(RateLimitContext.currentLease()).isEmpty();
    }

    @Test
    void plainArgumentReferencesAreReadFromTheArguments() throws Exception {
        for (String method : List.of("byName", "byP0", "byA0")) {
            RateLimitedMethod compiled = compiled(method, String.class);
            assertThat(compiled.operations[0].entity).as(method).isInstanceOf(RateLimitedMethod.Argument.class);
            assertThat(compiled.hasExpressions).as(method).isFalse();
        }
        Chat chat = proxy();
        assertThat(chat.byName("alice")).isEqualTo("lease");
        chat.byP0("alice");
        chat.byA0("alice");
        assertThat(available("alice", "rpm")).isEqualTo(97);
    }

    @Test
    void everyOtherExpressionIsEvaluatedBySpel() throws Exception {
        assertThat(compiled("byProperty", User.class).operations[0].entity).isInstanceOf(RateLimitedMethod.Spel.class);
        assertThat(compiled("byRoot", String.class).operations[0].entity).isInstanceOf(RateLimitedMethod.Spel.class);
        assertThat(compiled("literalEntity", String.class).operations[0].entity)
                .isInstanceOf(RateLimitedMethod.Spel.class);
        assertThat(compiled("byProperty", User.class).hasExpressions).isTrue();

        Chat chat = proxy();
        chat.byProperty(new User("bob"));
        chat.byRoot("carol");
        chat.literalEntity("dave");
        assertThat(available("bob", "rpm")).isEqualTo(99);
        assertThat(available("carol-x", "rpm")).isEqualTo(99);
        assertThat(available("fixed", "rpm")).isEqualTo(99);
        assertThat(available("dave", "rpm")).isEqualTo(100);
        assertThatThrownBy(() -> chat.byProperty(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot evaluate '#user.id'");
    }

    @Test
    void literalAmountsAreBuiltOnceInDeclarationOrder() throws Exception {
        RateLimitedMethod.Operation one = compiled("byName", String.class).operations[0];
        Map<String, Long> first = one.amounts(new Object[] {"alice"}, null);
        assertThat(first).isEqualTo(Map.of("rpm", 1L));
        assertThat(one.amounts(new Object[] {"bob"}, null)).isSameAs(first);

        RateLimitedMethod.Operation two = compiled("twoLiterals", String.class).operations[0];
        assertThat(two.amounts(new Object[] {"alice"}, null)).containsExactly(Map.entry("tpm", 500L),
                Map.entry("rpm", 1L));
        assertThat(two.amounts(new Object[] {"alice"}, null)).isSameAs(two.amounts(new Object[] {"bob"}, null));

        proxy().twoLiterals("erin");
        assertThat(available("erin", "tpm")).isEqualTo(9_500);
        assertThat(available("erin", "rpm")).isEqualTo(99);
    }

    @Test
    void amountsWithAnArgumentAreReadOnEveryCall() throws Exception {
        RateLimitedMethod.Operation mixed = compiled("literalAndArgument", String.class, long.class).operations[0];
        assertThat(mixed.amounts(new Object[] {"alice", 300L}, null)).containsExactly(Map.entry("rpm", 1L),
                Map.entry("tpm", 300L));
        assertThat(mixed.amounts(new Object[] {"alice", 700L}, null)).containsEntry("tpm", 700L);

        Chat chat = proxy();
        chat.literalAndArgument("frank", 300);
        chat.literalAndArgument("frank", 700);
        assertThat(available("frank", "tpm")).isEqualTo(9_000);
    }

    @Test
    void aFailureRollsBackOrClosesAsRollbackOnSays() {
        Chat chat = proxy();
        assertThatThrownBy(() -> chat.failing("gina", new IllegalArgumentException("bad")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(available("gina", "rpm")).as("rolled back").isEqualTo(100);
        assertThatThrownBy(() -> chat.failing("gina", new IllegalStateException("boom")))
                .isInstanceOf(IllegalStateException.class);
        assertThat(available("gina", "rpm")).as("closed").isEqualTo(99);
    }

    @Test
    void aCallInsideAScopeRestoresTheOuterLease() throws Exception {
        Chat chat = proxy();
        try (Lease outer = limiter.acquire("henry", "chat", Map.of("rpm", 1L));
             RateLimitContext.Scope scope = RateLimitContext.open("chat", outer)) {
            assertThat(chat.byName("henry")).isEqualTo("lease");
            assertThat(RateLimitContext.currentLease()).containsSame(outer);
        }
        assertThat(available("henry", "rpm")).isEqualTo(98);
    }

    @Test
    void oneMethodCalledOnSeveralTargetClassesIsCompiledForEach() throws Exception {
        Method call = Base.class.getMethod("call", String.class);
        RateLimitedMethod onBase = source.get(call, Base.class);
        RateLimitedMethod onOverriding = source.get(call, Overriding.class);
        RateLimitedMethod onInherits = source.get(call, Inherits.class);
        assertThat(onBase.operations[0].resource).isEqualTo("chat");
        assertThat(onOverriding.operations[0].resource).isEqualTo("models");
        assertThat(onInherits.operations[0].resource).isEqualTo("chat");
        assertThat(source.get(call, Overriding.class)).isSameAs(onOverriding);
        assertThat(source.get(call, Base.class)).isSameAs(onBase);
        assertThat(source.get(Base.class.getMethod("call", String.class), Inherits.class)).as("an equal Method")
                .isSameAs(onInherits);
        assertThat(source.get(Object.class.getMethod("toString"), Base.class)).isNull();
        assertThat(source.get(Object.class.getMethod("toString"), Base.class)).isNull();
        assertThat(source.size()).isEqualTo(4);
    }
}

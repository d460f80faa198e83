package dev.zaelimiter.store;

import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ForwardingStore} forwards every method of {@link LimiterStore}, default methods too: a method added to the
 * interface and not forwarded fails here, not in a decorator that silently answers the interface's default.
 */
class ForwardingStoreTest {

    /** What the delegate saw: the method and its arguments. */
    record Call(String method, List<Object> arguments) {
    }

    @Test
    void declaresEveryMethodOfTheInterface() {
        List<String> missing = new ArrayList<>();
        for (Method method : LimiterStore.class.getMethods()) {
            if (Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            try {
                Method declared = ForwardingStore.class.getDeclaredMethod(method.getName(),
                        method.getParameterTypes());
                assertThat(Modifier.isPublic(declared.getModifiers())).as(declared.toString()).isTrue();
            } catch (NoSuchMethodException e) {
                missing.add(method.toString());
            }
        }
        assertThat(missing).as("LimiterStore methods that ForwardingStore does not forward").isEmpty();
    }

    @Test
    void passesEachCallItsArgumentsAndItsAnswer() throws Exception {
        List<Call> calls = new ArrayList<>();
        LimiterStore delegate = (LimiterStore) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {LimiterStore.class}, (proxy, method, args) -> {
                    calls.add(new Call(method.getName(), args == null ? List.of() : Arrays.asList(args)));
                    return answer(method.getReturnType());
                });
        ForwardingStore store = new ForwardingStore() {
            @Override
            protected LimiterStore delegate() {
                return delegate;
            }
        };
        for (Method method : LimiterStore.class.getMethods()) {
            if (Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            Object[] args = new Object[method.getParameterCount()];
            for (int i = 0; i < args.length; i++) {
                args[i] = argument(method.getParameterTypes()[i], i);
            }
            calls.clear();
            Object answer;
            try {
                answer = method.invoke(store, args);
            } catch (InvocationTargetException e) {
                throw new AssertionError(method + " was not forwarded", e.getCause());
            }
            assertThat(calls).as(method.toString()).containsExactly(new Call(method.getName(), Arrays.asList(args)));
            if (method.getReturnType() != void.class) {
                assertThat(answer).as(method.toString()).isEqualTo(answer(method.getReturnType()));
            }
        }
    }

    private static final Map<Class<?>, Object> ANSWERS = new ConcurrentHashMap<>();

    /** One value of {@code type} per type where one is easy to make; the delegate's answers are compared by equality. */
    private static Object answer(Class<?> type) {
        return type.isInterface() ? ANSWERS.computeIfAbsent(type, ForwardingStoreTest::makeAnswer) : makeAnswer(type);
    }

    private static Object makeAnswer(Class<?> type) {
        if (type == boolean.class) {
            return true;
        }
        if (type == List.class) {
            return List.of("answer");
        }
        if (type == Optional.class) {
            return Optional.of("answer");
        }
        if (type == LevelConfig.class) {
            return LevelConfig.EMPTY;
        }
        if (type.isInterface()) {
            return Proxy.newProxyInstance(ForwardingStoreTest.class.getClassLoader(), new Class<?>[] {type},
                    (proxy, method, args) -> method.getName().equals("equals") ? proxy == args[0]
                            : method.getName().equals("hashCode") ? 7 : null);
        }
        return null;
    }

    private static Object argument(Class<?> type, int index) {
        if (type == long.class) {
            return 1_000L + index;
        }
        if (type == String.class) {
            return "argument-" + index;
        }
        if (type == List.class) {
            return List.of();
        }
        if (type == Boolean.class) {
            return Boolean.TRUE;
        }
        if (type == Long.class) {
            return 42L;
        }
        return null;
    }
}

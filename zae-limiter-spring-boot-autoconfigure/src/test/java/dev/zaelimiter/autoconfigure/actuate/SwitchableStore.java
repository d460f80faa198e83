package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * An in-memory store that can be switched off: while down, every store call raises a
 * {@link StoreUnavailableException}, as a DynamoDB store does when the service cannot be reached.
 */
public final class SwitchableStore {

    private final InMemoryStore delegate = new InMemoryStore();
    private final LimiterStore store;
    private volatile boolean down;

    public SwitchableStore() {
        this.store = (LimiterStore) Proxy.newProxyInstance(LimiterStore.class.getClassLoader(),
                new Class<?>[] {LimiterStore.class}, (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return switch (method.getName()) {
                            case "equals" -> proxy == args[0];
                            case "hashCode" -> System.identityHashCode(proxy);
                            default -> "SwitchableStore";
                        };
                    }
                    if (down && !method.getName().equals("close")) {
                        throw new StoreUnavailableException("the store is down (test)", null);
                    }
                    try {
                        return method.invoke(delegate, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    public LimiterStore store() {
        return store;
    }

    public void down() {
        down = true;
    }

    public void up() {
        down = false;
    }
}

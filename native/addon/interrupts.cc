#include "interrupts.h"

#include <semaphore.h>
#include <signal.h>

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

namespace fl::addon {
namespace {

std::mutex devices_lock;
std::vector<std::weak_ptr<DeviceState>> devices;

std::mutex install_lock;
bool watching = false;
sem_t interrupts;                 // posted by the handler: sem_post is async-signal-safe
struct sigaction handed_on;       // the handler ours runs in front of

void cancel_all() {
  std::lock_guard<std::mutex> guard(devices_lock);
  for (const auto& weak : devices) {
    std::shared_ptr<DeviceState> device = weak.lock();
    if (!device || device->closed) continue;
    device->cancel_requested = true;
    if (device->api->cancel) device->api->cancel(device->device);
  }
}

void on_interrupt(int signal, siginfo_t* info, void* context) {
  sem_post(&interrupts);
  if (handed_on.sa_flags & SA_SIGINFO) {
    if (handed_on.sa_sigaction) handed_on.sa_sigaction(signal, info, context);
  } else if (handed_on.sa_handler == SIG_DFL) {
    struct sigaction fallback = {};
    fallback.sa_handler = SIG_DFL;
    sigaction(signal, &fallback, nullptr);
    raise(signal);
  } else if (handed_on.sa_handler != SIG_IGN) {
    handed_on.sa_handler(signal);
  }
}

}  // namespace

void remember_device(const std::shared_ptr<DeviceState>& device) {
  std::lock_guard<std::mutex> guard(devices_lock);
  devices.erase(std::remove_if(devices.begin(), devices.end(), [](const auto& d) { return d.expired(); }), devices.end());
  devices.push_back(device);
}

void watch_interrupts() {
  std::lock_guard<std::mutex> guard(install_lock);
  struct sigaction current = {};
  sigaction(SIGINT, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == &on_interrupt) return;
  if (!watching) {
    sem_init(&interrupts, 0, 0);
    std::thread([] {
      for (;;) {
        while (sem_wait(&interrupts) != 0) {
        }
        cancel_all();
      }
    }).detach();
    watching = true;
  }
  handed_on = current;
  struct sigaction mine = {};
  mine.sa_sigaction = &on_interrupt;
  mine.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&mine.sa_mask);
  sigaction(SIGINT, &mine, nullptr);
}

}  // namespace fl::addon
